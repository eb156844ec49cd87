# genuine output, produced here on loopback (2026-12-02)
# tool: iperf 3.12 (cJSON 1.7.15), Debian 12 package (installed), Linux 6.18.44 x86_64
# kept: client stdout
# recorded by: python scripts/record_iperf3.py bench
server: timeout 15 iperf3 -s -p 35917 -1
client: timeout 15 iperf3 -c 127.0.0.1 -p 35917 -t 1 -u -b 50M --bidir -J
# exit status: 0
