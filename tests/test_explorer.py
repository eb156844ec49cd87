"""The JupyterLab explorer of 02_explore on the real demo campaign: the
drawing function, and the dropdowns driving it (without a browser)."""

from pathlib import Path

import matplotlib.pyplot as plt
import pytest

from analysis.report import overview
from analysis.ingest.campaign import load_campaign
from analysis.figures.explorer import KINDS, Explorer, draw, varying_factors
from analysis.ingest.per_run import one_row_per_run

DEMO = Path(__file__).resolve().parents[1] / "data/raw/demo-loopback"


@pytest.fixture(scope="module")
def demo():
    data = load_campaign(DEMO)
    runs = one_row_per_run(data.runs)
    return runs, overview.design_factors(data, runs)


def test_varying_factors_are_the_demo_design(demo):
    runs, factors = demo
    assert set(varying_factors(runs, factors)) == {"tool", "ip_version", "transport", "packet_size_bytes"}


def test_means_over_a_size_draw_one_line_per_colour_level(demo):
    runs, _ = demo
    fig = draw(runs, "netperf", "throughput_mbps", "packet_size_bytes", "ip_version", "means",
               campaign="demo-loopback", synthetic=False)
    ax = fig.axes[0]
    assert ax.get_xlabel().startswith("Packet size")
    assert ax.get_ylabel() == "Throughput (Mbit/s)"
    assert sorted(t.get_text() for t in ax.get_legend().get_texts()) == ["IPv4", "IPv6"]
    plt.close(fig)


def test_means_over_a_category_draw_bars(demo):
    runs, _ = demo
    fig = draw(runs, "iperf3", "throughput_mbps", "transport", None, "means", campaign="demo-loopback", synthetic=False)
    assert [t.get_text() for t in fig.axes[0].get_xticklabels()] == ["TCP", "UDP"]
    plt.close(fig)


def test_nothing_to_draw_and_unknown_kinds_say_why(demo):
    runs, _ = demo
    with pytest.raises(ValueError, match="netperf has no successful run with a value of owd_ms"):
        draw(runs, "netperf", "owd_ms", "packet_size_bytes", None, "means", campaign="d", synthetic=False)
    with pytest.raises(ValueError, match="expected one of means, distribution"):
        draw(runs, "netperf", "throughput_mbps", "packet_size_bytes", None, "pie", campaign="d", synthetic=False)


def test_dropdowns_follow_the_tool_and_redraw(demo):
    runs, factors = demo
    ex = Explorer(runs, factors, campaign="demo-loopback", synthetic=False)
    assert ex.tool.options == ("ditg", "iperf3", "netperf")
    assert "owd_ms" in ex.metric.options and ex.figure is not None
    assert bytes(ex.image.value).startswith(b"\x89PNG")
    assert ex.x.value == "packet_size_bytes"  # the size, as in the studies' figures
    ex.tool.value = "netperf"
    assert "owd_ms" not in ex.metric.options  # D-ITG measures one-way delay, netperf does not
    assert "cpu_local_pct" in ex.metric.options
    ex.metric.value = "cpu_local_pct"
    assert ex.figure.axes[0].get_ylabel().startswith("CPU")
    ex.kind.value = "distribution"
    assert len(ex.figure.axes[0].collections) > 0  # the runs drawn as points
    assert ex.message.value == ""


def test_a_selection_without_data_is_said_in_the_widget(demo):
    runs, factors = demo
    ex = Explorer(runs, factors, campaign="demo-loopback", synthetic=False)
    ex.tool.value = "netperf"
    ex.metric.value = "throughput_mbps"
    ex.x.value = "transport"
    assert bytes(ex.image.value).startswith(b"\x89PNG")
    ex.x.options = [*ex.x.options, "application"]  # a factor netperf has no level of
    ex.x.value = "application"
    assert ex.message.value == "the runs have no column application"
    # no figure of another selection stays on screen under the message
    assert bytes(ex.image.value) == b"" and ex.image.layout.display == "none" and ex.figure is None
    ex.x.value = "transport"
    assert ex.message.value == "" and ex.image.layout.display is None and bytes(ex.image.value)


@pytest.mark.slow  # seconds of CPU: out of `make test-fast`, in `make test`
def test_every_combination_of_the_dropdowns_draws_and_closes_its_figure(demo, monkeypatch):
    """All 336 selections of the demo (tool × metric × x × colour × kind):
    none fails (colour "(none)" or = x with a size on the x axis raised
    "Grouper ... not 1-dimensional" and left a figure open)."""
    from matplotlib.figure import Figure

    runs, factors = demo
    plt.close("all")
    ex = Explorer(runs, factors, campaign="demo-loopback", synthetic=False)
    # what is tested is the drawing; writing 336 PNGs would only add time
    monkeypatch.setattr(Figure, "savefig", lambda self, buffer, **kw: buffer.write(b"\x89PNG stub"))
    drawn, failed = 0, []
    for tool in ex.tool.options:
        ex.tool.value = tool
        combos = [(m, x, h, k) for m in ex.metric.options for x in ex.x.options for h in ex.hue.options for k in KINDS]
        for metric, x, hue, kind in combos:
            ex._quiet = True  # set all four, then draw once
            ex.metric.value, ex.x.value, ex.hue.value, ex.kind.value = metric, x, hue, kind
            ex._quiet = False
            ex.redraw()
            drawn += 1
            if ex.message.value or ex.figure is None:
                failed.append((tool, metric, x, hue, kind, ex.message.value))
    assert drawn == 336 and failed == []
    assert plt.get_fignums() == []  # every figure drawn was closed


def test_ip_version_is_a_category_and_labelled_alike_everywhere(demo):
    runs, factors = demo
    prov = {"campaign": "demo-loopback", "synthetic": False, "factors": factors}
    bars = draw(runs, "iperf3", "throughput_mbps", "ip_version", None, "means", **prov)
    ax = bars.axes[0]
    assert len(ax.patches) == 2  # a bar per IP version ...
    assert [l for l in ax.lines if l.get_linestyle() not in ("None", "none", "", " ")] == []  # ... no line from 4 to 6
    assert [t.get_text() for t in ax.get_xticklabels()] == ["IPv4", "IPv6"]
    boxes = draw(runs, "iperf3", "throughput_mbps", "packet_size_bytes", "ip_version", "distribution", **prov)
    assert [t.get_text() for t in boxes.axes[0].get_legend().get_texts()] == ["IPv4", "IPv6"]
    lines = draw(runs, "iperf3", "throughput_mbps", "packet_size_bytes", "ip_version", "means", **prov)
    assert [t.get_text() for t in lines.axes[0].get_legend().get_texts()] == ["IPv4", "IPv6"]
    plt.close("all")


def test_the_caption_names_the_factors_a_mean_pools_over(demo):
    runs, factors = demo
    fig = draw(runs, "iperf3", "throughput_mbps", "packet_size_bytes", "ip_version", "means",
               campaign="demo-loopback", synthetic=False, factors=factors)
    caption = " ".join(fig.texts[-1].get_text().split())  # wrapped to the figure's width
    assert "Pooled over all levels of Transport (not shown)" in caption
    fig2 = draw(runs, "iperf3", "throughput_mbps", "packet_size_bytes", "transport", "means",
                campaign="demo-loopback", synthetic=False, factors=factors)
    assert "Pooled over all levels of IP version (not shown)" in " ".join(fig2.texts[-1].get_text().split())
    plt.close("all")


def test_the_figure_fits_the_output_area(demo):
    import io

    from PIL import Image

    runs, factors = demo
    ex = Explorer(runs, factors, campaign="demo-loopback", synthetic=False)
    width, _ = Image.open(io.BytesIO(bytes(ex.image.value))).size
    assert width <= 720  # pixels at 100 dpi, as the report's figures
    assert ex.image.layout.width == "100%" and ex.image.layout.max_width == "720px"  # shrinks, never grows


@pytest.mark.slow  # seconds of CPU: out of `make test-fast`, in `make test`
def test_a_choice_the_next_tool_offers_too_is_kept():
    # lan-p2p: iperf3 varies ip_version, size and stack; netperf also mode and
    # transport, so its x options differ (setting new options resets a dropdown)
    data = load_campaign(DEMO.parent / "lan-p2p")
    runs = one_row_per_run(data.runs)
    ex = Explorer(runs, overview.design_factors(data, runs), campaign="lan-p2p", synthetic=False)
    assert ex.tool.value == "iperf3" and ex.x.value == "packet_size_bytes"
    ex.x.value = "stack"
    ex.tool.value = "netperf"
    assert ex.x.options[0] == "mode" and ex.x.value == "stack"
    assert ex.figure.axes[0].get_xlabel() == "Stack"


def test_the_widget_says_it_is_drawing_and_hides_the_old_figure_meanwhile(demo):
    runs, factors = demo
    ex = Explorer(runs, factors, campaign="demo-loopback", synthetic=False)
    assert ex.state == "shown" and ex.image.layout.visibility == "visible"
    old = bytes(ex.image.value)
    seen = []  # what a reader sees each time the message changes, in order
    ex.message.observe(lambda change: seen.append((change["new"], ex.image.layout.visibility, ex.state,
                                                   bytes(ex.image.value) == old)), names="value")
    ex.kind.value = "distribution"
    drawing, shown = seen
    assert drawing == ("drawing ditg · " + ex.metric.value + " against packet_size_bytes (distribution) …",
                       "hidden", "drawing", True)  # the old figure is still there, but hidden
    assert shown == ("", "visible", "shown", False)
    ex.x.options = [*ex.x.options, "application"]  # a factor ditg has no level of (this redraws too)
    seen.clear()
    ex.x.value = "application"  # cannot be drawn: drawing, then why, with no image
    assert [(m.split(" ")[0], state) for m, _, state, _ in seen] == [("drawing", "drawing"), ("the", "failed")]
    assert ex.image.layout.display == "none" and ex.figure is None


def test_the_saved_output_is_a_sentence_beside_the_widget_view(demo):
    runs, factors = demo
    ex = Explorer(runs, factors, campaign="demo-loopback", synthetic=False)
    bundle = ex._repr_mimebundle_()
    assert bundle["application/vnd.jupyter.widget-view+json"]["model_id"] == ex.widget.model_id
    assert bundle["text/plain"] == ("Explorer of demo-loopback: pick a tool (ditg, iperf3, netperf), a metric, the x "
                                    "axis and the colour, and see the runs drawn; it draws in a live kernel (run this "
                                    "cell in JupyterLab).")
