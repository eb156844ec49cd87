import yaml
from common import norm, PAPERS, OUT
D = {
 '000_4e5320b6fe1e825c': [
  ('runs_per_point', 40, 'we repeated each tests for 40 runs and the results then average and standard deviation of results was calculated'),
  ('run_duration_s', 60, 'Most performance evaluation tests were executed for a period of about 60 seconds'),
  ('packets_per_run', 1000000, 'which usually generated one million packets of a particular packet size and protocol (one run)'),
  ('tool', 'Netperf 2.4.5', 'We selected Netperf 2.4.5 [17] as the primary network traffic generation and monitoring tool'),
  ('sizes_bytes', [128, 384, 640, 896, 1152, 1408], 'we used various IP packet sizes ranging from 128 to 1408 bytes'),
  ('size_kind', 'packet', 'Data packet sizes were gradually increased in size from 128 to 1408 bytes for both TCP and UDP'),
  ('os', ['Windows XP Professional SP3', 'Windows 7 Professional', 'Fedora 12'], 'This was done for Windows XP, Windows 7 and Linux Fedora 12 operating systems'),
  ('ip_versions', [4, 6], 'We did the performance measurement process for both TCP and UDP in our IPv4 and IPv6 network'),
  ('transports', ['TCP', 'UDP'], 'We did the performance measurement process for both TCP and UDP in our IPv4 and IPv6 network'),
  ('security', ['open system'], 'over 802.11n peer- peer WLAN (no encryption used, open systems)'),
  ('topology', '2 hosts, peer-to-peer via Cisco Linksys WAP4410N 802.11n AP, 40 MHz channel', 'The two machines were connected wirelessly (peer-peer) via Cisco Linksys WAP4410N 802.11n Access Point (AP)'),
  ('channel_bandwidth', '40 MHz', 'The access point provided two options here, 20 MHz and 40 MHz, and the latter was selected to utilize the full bandwidth'),
  ('socket_sizes', 'TCP window 64KB, UDP 8KB', 'The maximum TCP window size (64KB) and UDP window size (8KB) were used'),
  ('hosts', 'Intel Core 2 Duo 6300 1.87 GHz, 2 GB RAM, Air Live Wn-5000 wireless PCI NIC', 'Intel® Core™ 2 Duo 6300 1.87 GHz processor with 2.00 GB RAM, Air Live Wn-5000 wireless PCI NIC card'),
  ('metrics', ['throughput (Mbps)', 'round-trip time (ms)'], 'Throughput (measured in Mbps) is the number of bits transmitted per unit time'),
 ],
 '001_67ed56f85540d5f7': [
  ('runs_per_point', 40, 'For each packet size a total of 40 runs are carried out and the results are averaged and standard deviation of results are calculated'),
  ('packets_per_run', 1000000, 'included sending one million packets of a particular packet size and protocol (one run)'),
  ('tool', 'Netperf (version not printed)', 'Netperf [12] was selected as the primary tool for this particular test-bed'),
  ('sizes_bytes', [128, 384, 640, 896, 1152, 1408], 'Data packets are gradually increased in size (from 128 to 1408 Bytes) for TCP traffic'),
  ('size_kind', 'packet', 'Data packets are gradually increased in size (from 128 to 1408 Bytes)'),
  ('os', ['Windows 7 Professional', 'Fedora 12'], 'compare the performance of wireless 802.11n with and without WPA2 security for IPv4 and IPv6 using TCP (Transmission Control Protocol) on Windows 7 and Fedora 12'),
  ('ip_versions', [4, 6], 'with and without WPA2 security for IPv4 and IPv6 using TCP'),
  ('transports', ['TCP'], 'Throughput and RTT results are measured for TCP protocol on an IEEE 802.11n network'),
  ('security', ['open system', 'WPA2'], 'compare the performance of wireless 802.11n with and without WPA2 security'),
  ('topology', '2 hosts, peer-to-peer via Cisco Linksys WAP4410N 802.11n AP, 40 MHz channel', 'were connected wirelessly via Cisco Linksys WAP4410N 802.11n Access Point (AP)'),
  ('socket_sizes', 'TCP window 64KB', 'the maximum TCP window size (64KB) was used to ensure the optimum data transfer during the tests'),
  ('metrics', ['throughput (Mbps)', 'RTT (ms)'], 'The metric used in the experiment are throughput (measured in Mbps) and RTT (measured in ms)'),
 ],
 '002_6c0e8c5c95705e2f': [
  ('runs_per_point', 10, 'Ten such runs were recorded per protocol for each Windows-based OS'),
  ('packets_per_run', 1000000, 'For each evaluation-run performed, IP Traffic sent a total of one million packets'),
  ('tool', 'IP Traffic (Windows), modified Iperf (Linux); versions not printed', 'For Linux systems, a heavily modified tool of Iperf [16] was used'),
  ('tool_windows', 'IP Traffic', 'For Windows, IP Traffic [13] was selected as the preferred tool'),
  ('sizes_bytes', [128, 384, 640, 896, 1152, 1408], 'for packet lengths of 128, 384, 640, 896, 1152, and 1408 bytes'),
  ('size_kind', 'packet', 'We gradually increased the data packet lengths from 128 to 1408 bytes'),
  ('os', ['Windows 7 - Windows Server 2008', 'Ubuntu 10.04 - Red Hat Enterprise Server 5.5'], 'Windows 7, Windows Server 2008, Ubuntu 10.04, and Red Hat Enterprise Server 5.5'),
  ('ip_versions', [4, 6], 'we quantify the performance of UDP for IPv6 against IPv4'),
  ('transports', ['UDP'], 'we quantify the performance of UDP for IPv6 against IPv4'),
  ('topology', '2 hosts, Gigabit Ethernet, Cat 6 crossover cable, no routers or switches', 'The client and the server machines were connected using a Category 6 Crossover UTP (Unshielded Twisted Pair) cable'),
  ('acceptance', 'standard deviation below 10%', 'A standard deviation of less than 10% was implemented to accurately measure overall system performance'),
  ('metrics', ['throughput', 'RTT', 'jitter', 'CPU usage'], 'We measure UDP link throughput, round-trip time (RTT), jitter, and CPU utilization'),
 ],
 '003_78d69edb35c6dd71': [
  ('runs_per_point', 10, 'did 10 runs per packet size, and then averaged the results of runs that gave us results with 95% confidence interval'),
  ('run_duration_s', 60, 'we used a 1- minute interval for each run'),
  ('tool', 'D-ITG (throughput, RTT) and Netperf (throughput, CPU); versions not printed', 'D-IGT [10] and Netperf [11] were both selected as the generating and measurement tools for our experiment'),
  ('sizes_bytes', [128, 256, 384, 512, 640, 768, 896, 1024, 1152, 1408], 'Different packets sizes were used ranging from 128, 256, 384, 512, 640, 768, 896, 1024, 1152 to 1408 Bytes'),
  ('size_kind', 'packet', 'Different packets sizes were used'),
  ('os', ['Windows 10 (client) / Windows Server (server)', 'Ubuntu Linux'], 'one PC with Intel® Core™ i7-6700 processors at 3.40GHz with RAM of 16.0GB with Windows 10 installed'),
  ('ip_versions', [4, 6], 'The tests continued for both IPv4 and IPv6 with TCP or UDP at the transport layer'),
  ('transports', ['TCP', 'UDP'], 'The tests continued for both IPv4 and IPv6 with TCP or UDP at the transport layer'),
  ('topology', ['peer-to-peer (2 PCs wireless via AP)', 'client-server (server wired to AP)'], 'The server was connected to the access point (LAPAC1750 Pro) using a straight through cable'),
  ('access_point', 'Linksys LAPAC1750 Pro 802.11ac, 80 MHz', 'Linksys LAPAC1750 Pro that was configured to run at 80MHz'),
  ('metrics', ['throughput', 'RTT (D-ITG)', 'CPU utilization (Netperf)'], 'With D-ITG we managed to determine the round trip time. Netperf was used to determine the CPU utilization'),
 ],
 '004_a7738a926cf50bd6': [
  ('runs_per_point', None, 'Duration for one run 60 seconds'),
  ('run_duration_s', 60, 'Duration for one run 60 seconds'),
  ('packets_per_second', 180000, 'Packets per second 180000'),
  ('flows_per_run', 60, 'Number of flows per run 60 flows'),
  ('tool', 'D-ITG v2.6.1 (ITGSend, ITGRecv, ITGDec)', 'Distributed Internet Traffic Generator (D-ITG) v2.6.1'),
  ('sizes_bytes', [1518, 2455, 3392, 4329, 5266, 6203, 7140, 8037, 9014], '1518 2455 3392 4329 5266 6203 7140 8037 9014'),
  ('size_kind', 'frame', 'On the smallest Jumbo frame size, 1518 Bytes'),
  ('mtu_bytes', 9000, 'the decision was made that the most ideal MTU size to be used in this study would be 9000 Bytes'),
  ('os', ['Windows 7 Professional', 'Windows Server 2008 Standard', 'Windows Server 2003 Enterprise', 'Fedora Core 12', 'Ubuntu 10.10', 'OpenSUSE 11.3'], 'Microsoft Windows Server 2008 Standard Edition'),
  ('os_role', 'router OS varied on both routers; sender and receiver Windows 7 Professional', 'The experiments were performed on the six operating systems by configuring one platform on the two routers at a time'),
  ('ip_versions', [4, 6], 'Jumbo frame sizes were employed on both IPv6 and IPv4'),
  ('transports', ['TCP', 'UDP'], 'and TCP and UDP were both'),
  ('topology', 'sender - router1 - router2 - receiver, three Cat5e crossover links, Gigabit', 'the four computers were connected by three Cat5e cross- over cables, and this link sent a Gigabit of data from sender to receiver'),
  ('hosts', 'Intel Core 2 Duo E6300 1.86GHz, 2x1GB DDR2, 2x Intel PRO/1000 GT', 'Processor Intel® Core 2 Duo CPU E6300 @ 1.86GHz'),
  ('applications', ['DNS', 'games CSa, CSi, Quake3', 'VoIP G.711.1, G.711.2, G.723.1, G.729.2, G.729.3'], '5.3 Applications Analysis'),
  ('metrics', ['throughput', 'one-way delay', 'jitter', 'router CPU (Router 1, Router 2)', 'packets dropped'], 'which are throughput, delay and jitter. The CPU utilisations were also measured in the experiments'),
 ],
}
NOTES = {'004_a7738a926cf50bd6': 'Runs per point are not printed (one run = 60 s, 180000 packets/s, 60 flows per Table 4-2); test-bed IPv6 addresses 2001:210:10:x::/64 and IPv4 192.168.1.0/26 subnets (Figure 4-1).'}
out, bad = {}, False
for stem, items in D.items():
    text = norm((PAPERS / f'{stem}.txt').read_text(encoding='utf-8'))
    entries = []
    for field, value, snippet in items:
        if norm(snippet) not in text:
            print(stem, 'missing:', snippet); bad = True
        entries.append({'field': field, 'value': value, 'snippet': norm(snippet)})
    out[stem] = {'design': entries, **({'note': NOTES[stem]} if stem in NOTES else {})}
if bad: raise SystemExit(1)
(OUT / 'designs.yaml').write_text('# Designs as printed in each study; every snippet occurs verbatim (whitespace-normalised) in the study text.\n'
                                  + yaml.safe_dump(out, sort_keys=False, allow_unicode=True, width=140), encoding='utf-8')
print('ok')
