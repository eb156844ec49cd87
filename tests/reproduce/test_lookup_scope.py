"""Which printed differences a claim's cell takes (issue 23, item 1): a statement naming
several levels, a cross-cell pair, a difference of minima, and the claim's own sentence
beside an independent printing."""
from __future__ import annotations

from test_rules import CLAIM, claim, record, row, verdict

OS_CLAIM = {"scope": {"ip_version": 6}, "compare": {"factor": "os", "levels": ["Ubuntu", "Server"]},
            "per": ["size_bytes"]}


def known(os="Server", **kw):
    """A row that makes ``os`` a level the record names (compared_to is read against the record's levels)."""
    return row(99, os=os, statistic="sd", value=0.1, **kw)


def os_pct(n, os, compared_to, value=2.6, size=1408, snippet="", **kw):
    """``os`` printed ``value`` % above what ``compared_to`` names, at ``size``, IPv6."""
    return row(n, os=os, ip_version=6, size_bytes=size, size_kind="frame", statistic="pct_diff", value=value,
               unit="%", compared_to=compared_to, larger_side="subject",
               snippet=snippet or f"{os} dropped {value}% more than {compared_to}", **kw)


def test_a_statement_naming_two_levels_is_said_of_each():
    """'Ubuntu dropped 2.6 % more than Server and Seven' puts Ubuntu above Server."""
    rows = [os_pct(1, "Ubuntu", "Server and Seven, IPv6", size=128), os_pct(2, "Ubuntu", "Server and Seven, IPv6"),
            known(), known("Seven") | {"id": "999-0098"}]
    assert verdict(record(rows, [claim(**OS_CLAIM)]))["verdict"] == "agrees"


def test_a_statement_naming_two_levels_leaves_a_cell_that_does_not_pin_its_qualifiers():
    """The claim leaves the IP version open: 'at IPv6, 2.6 % more than Server and Seven' may not be its cell."""
    rows = [os_pct(1, "Ubuntu", "Server and Seven, IPv6", size=128), os_pct(2, "Ubuntu", "Server and Seven, IPv6"),
            known(ip_version=4), known("Seven") | {"id": "999-0098"}]  # the study has IPv4 too
    open_ip = claim(**{**OS_CLAIM, "scope": {}})
    assert verdict(record(rows, [open_ip]))["verdict"] == "untestable"
    alone = [os_pct(1, "Ubuntu", "Server, IPv6", size=128), os_pct(2, "Ubuntu", "Server, IPv6"), known()]
    assert verdict(record(alone, [open_ip]))["verdict"] == "agrees"  # one named level: as before


def test_a_generic_level_is_not_named_by_a_longer_name_that_contains_it():
    rows = [row(1, application="games CSa", statistic="pct_diff", value=17.0, unit="%", larger_side="compared",
                compared_to="games Quake3, Router 1", snippet="CSa required 17% less than Quake3"),
            row(2, application="games", statistic="sd", value=1.0), row(3, application="games Quake3", statistic="sd", value=1.0)]
    games = claim(scope={"os": "A"}, compare={"factor": "application", "levels": ["games CSa", "games Quake3"]},
                  per=[])
    assert verdict(record(rows, [games]))["verdict"] == "disagrees"


def test_a_cross_cell_claim_takes_only_a_difference_printed_across_the_open_factor():
    """'Ubuntu IPv4 above Server IPv6': Ubuntu's IPv6 difference against Server is another pair."""
    cross = claim(scope={}, compare={"factor": "os", "levels": ["Ubuntu", "Server"]}, per=[], cross_cell=True)
    same_ip = [os_pct(1, "Ubuntu", "Server, IPv6", size=""), known()]
    assert verdict(record(same_ip, [cross]))["verdict"] == "untestable"
    across = [row(1, os="Ubuntu", ip_version=4, statistic="pct_diff", value=2.0, unit="%", larger_side="subject",
                  compared_to="Server, IPv6", snippet="Ubuntu IPv4 was 2% above Server IPv6"), known(ip_version=6)]
    assert verdict(record(across, [cross]))["verdict"] == "agrees"


def test_a_difference_of_minima_is_no_cells_difference():
    rows = [row(1, ip_version=4, statistic="pct_diff", value=16.0, unit="%", larger_side="subject",
                compared_to="IPv6 (minima)", snippet="Table IV: 23.8 20 16")]
    assert verdict(record(rows, [claim(per=[])]))["verdict"] == "untestable"
    rows[0]["compared_to"] = "IPv6"
    assert verdict(record(rows, [claim(per=[])]))["verdict"] == "agrees"


def test_an_independent_printing_is_preferred_to_the_claims_own_sentence():
    """The same difference printed in the claim's sentence and in another decides it by the other."""
    own = row(1, ip_version=4, statistic="pct_diff", value=1.6, unit="%", larger_side="subject", compared_to="IPv6",
              snippet="IPv4 has higher throughput than IPv6 by 1.6%")
    other = row(2, ip_version=4, statistic="pct_diff", value=1.2, unit="%", larger_side="compared",
                compared_to="IPv6", snippet="IPv6 was 1.2% above IPv4 on the largest frame")
    c = claim(per=[], quote="IPv4 has higher throughput than IPv6 by 1.6%")
    assert verdict(record([own], [c]))["verdict"] == "restated"
    assert verdict(record([own, other], [c]))["verdict"] == "disagrees"


def test_a_difference_of_the_claims_own_numbers_is_the_claim_said_again():
    """'IPv4 gave 562 Mbps and IPv6 486 Mbps' then 'IPv4 is higher by 76 Mbps': no second measurement."""
    from analysis.reproduce.verdicts import derived_from_quote
    diff = {"statistic": "diff", "value": 76.0, "value_as_printed": "76", "unit": "Mbps",
            "snippet": "For peer-to-peer, IPv4 is also higher by 76Mbps than IPv6."}
    assert derived_from_quote("IPv4 gave the highest throughput of 562Mbps and IPv6 486Mbps", diff)
    beside = diff | {"value": 130.0, "value_as_printed": "130",
                     "snippet": "IPv6 reached the maximum throughput of 560Mbps giving the difference of 130Mbps"}
    assert derived_from_quote("IPv4 also has the higher throughput of 690Mbps", beside)
    assert not derived_from_quote("IPv4 also has the higher throughput of 700Mbps", beside)
    pct = {"statistic": "pct_diff", "value": 2.0, "value_as_printed": "2", "unit": "%",
           "snippet": "Figure 5-3-42: on the VoIP CODEC G.711.1 it was 2% lower"}
    assert not derived_from_quote("Figure 5-3-43: G.711.1 and G.723.1 produced similar values", pct)


def test_a_section_that_restates_findings_is_no_independent_evidence():
    rows = [row(1, ip_version=4, statistic="pct_diff", value=2.0, unit="%", larger_side="subject",
                compared_to="IPv6", snippet="As discussed, IPv4 was 2% above IPv6", locator="section 6.2")]
    c = claim(per=[], quote="IPv4 has higher throughput than IPv6")
    plain = record(rows, [c])
    assert verdict(plain)["verdict"] == "agrees"
    plain.design["restating_sections"] = ["section 6"]
    assert verdict(plain)["verdict"] == "restated"


def test_a_difference_that_is_the_peaks_apart_shows_the_order_at_the_peaks_only():
    """'IPv4 reached 652 Mbps while IPv6 reached 568 … IPv4 is higher by 84 Mbps': no overall difference."""
    peaks = [row(1, ip_version=4, statistic="max", value=652.0, snippet="IPv4 reached the highest of 652Mbps"),
             row(2, ip_version=6, statistic="max", value=568.0, snippet="while IPv6 reached 568Mbps")]
    gap = row(3, ip_version=4, statistic="diff", value=84.0, unit="Mbps", larger_side="subject", compared_to="IPv6",
              snippet="IPv4 is much higher than IPv6 by 84Mbps difference")
    overall = claim(per=[], quote="IPv4 had higher bandwidth than IPv6")
    assert verdict(record(peaks + [gap], [overall], sizes=(128, 256, 1408)))["verdict"] == "agrees where printed"
    other_gap = gap | {"value": 50.0, "value_as_printed": "50", "snippet": "IPv4 is higher than IPv6 by 50Mbps overall"}
    assert verdict(record(peaks + [other_gap], [overall], sizes=(128, 256, 1408)))["verdict"] == "agrees"


FINDING = ("According to Figure 2, excluding frame size 4329 Bytes, frame sizes ranging from 1518 to 6203 Bytes, "
           "Microsoft Windows Server 2003 produced 8% lower throughput values than the rest of the operating systems.")
AGAIN = ("Moreover, Figure 3 concluded that excluding frame size 4329 Bytes, frame sizes ranging from 1518 to 6203 "
         "Bytes, Microsoft Windows Server 2003 on IPv4 produced 8% lower throughput values than the rest of the "
         "operating systems.")


def test_a_finding_printed_again_in_nearly_its_words_is_said_again_either_way():
    from analysis.reproduce.lookup import said_again
    assert said_again(FINDING.lower(), AGAIN.lower()) and said_again(AGAIN.lower(), FINDING.lower())
    assert not said_again(FINDING.lower(), AGAIN.replace("8%", "9%").lower())  # another measure: another finding
    # the thesis's opening formula shared, the finding not
    other = ("Based on the graph presented in Figure 5, it can be said that, IPv4 on Windows 7 on the Quake3 game "
             "was 3% higher than IPv6 in terms of CPU utilisations.")
    claim_text = ("Based on the graph presented in Figure 6, it can be said that, on the Quake3 game IPv6 and IPv4 "
                  "on Windows Server 2008 yielded similar throughput however, IPv4 was 3% higher.")
    assert not said_again(claim_text.lower(), other.lower())
    assert not said_again("ipv4 was 3% higher than ipv6", "ipv4 was 3% higher than ipv6 on fedora")  # too short
    bullet = ("Based on the graph presented in Figure 5-2-20, it can be said that Microsoft Windows Server 2003 utilising "
              "TCP on IPv4 on all of the frame sizes outperformed UDP on IPv4 except for frame size 4329 Bytes where UDP "
              "on IPv4 outperformed TCP by 53.8%.")
    closing = ("Based on the graph presented in Figure 5-2-20, it can be concluded that Microsoft Windows Server 2003 on "
               "all of the frame sizes TCP outperformed UDP except for frame size 4329 Bytes where UDP outperformed TCP "
               "by 53.8%.")
    assert said_again(closing, bullet) and said_again(bullet, closing)  # the figure's formula aside, one finding
    more = closing.replace("by 53.8%.", "by 53.8% and by 2% on the rest.")
    assert not said_again(closing, more)  # a sentence with a number of its own says more than the claim


def test_a_body_finding_printed_twice_is_no_evidence_for_either_printing():
    rows = [row(1, ip_version=4, statistic="pct_diff", value=8.0, unit="%", larger_side="compared",
                compared_to="IPv6", snippet=AGAIN, locator="section 5.1.2")]
    body = claim(per=[], direction="less", quote=FINDING, source="999.txt, section 5.1.1")
    assert verdict(record(rows, [body]))["verdict"] == "restated"
    summary = record(rows, [body | {"source": "999.txt, section 6.2"}])
    summary.design["restating_sections"] = ["section 6"]
    assert verdict(summary)["verdict"] == "agrees"  # a summary's claim is checked against the body it sums up


def test_a_number_printed_for_no_size_decides_where_the_sized_cells_only_restate():
    own = [row(n, ip_version=4, size_bytes=size, statistic="pct_diff", value=5.0, unit="%", larger_side="subject",
               compared_to="IPv6", snippet=f"{CLAIM} by 5% at every size") for n, size in ((1, 128), (2, 1408))]
    overall = row(3, ip_version=4, statistic="pct_diff", value=2.0, unit="%", larger_side="subject",
                  compared_to="IPv6", snippet="IPv4 was 2% above IPv6")
    assert verdict(record(own, [claim()]))["verdict"] == "restated"
    assert verdict(record(own + [overall], [claim()]))["verdict"] == "agrees where printed"


def test_an_equivalence_known_only_from_its_own_percentage_is_restated_not_a_tie():
    rows = [row(1, os="A", statistic="pct_diff", value=0.1, unit="%", larger_side="subject", compared_to="B",
                snippet="All produced very similar values however, A was slightly higher by 0.1% than B.")]
    similar = claim(per=[], scope={}, compare={"factor": "os", "levels": ["A", "B"]}, direction="equivalent",
                    margin=0.1, quote="All produced very similar values however, A was slightly higher by 0.1% than B.")
    assert verdict(record(rows + [row(2, os="B", statistic="sd", value=1.0)], [similar]))["verdict"] == "restated"


def test_two_means_printed_for_different_settings_are_no_difference():
    """Windows' client-server RTT beside Ubuntu's peer-to-peer RTT at one size compares testbeds, not OSes."""
    def mean(n, os, testbed, value):
        return row(n, os=os, testbed=testbed, size_bytes=1408, statistic="mean", value=value, unit="ms",
                   metric="throughput_mbps")
    overall = claim(scope={}, per=["size_bytes"], compare={"factor": "os", "levels": ["Ubuntu", "Server"]})
    apart = [mean(1, "Ubuntu", "peer-to-peer", 0.30), mean(2, "Server", "client-server", 0.19)]
    assert verdict(record(apart, [overall]))["verdict"] == "untestable"
    alike = [mean(1, "Ubuntu", "peer-to-peer", 0.30), mean(2, "Server", "peer-to-peer", 0.19)]
    assert verdict(record(alike, [overall]))["verdict"] != "untestable"
