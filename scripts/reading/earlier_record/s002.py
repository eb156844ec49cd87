from common import Study
S = Study('002_6c0e8c5c95705e2f', testbed='Gigabit Ethernet peer-to-peer, Cat 6 crossover cable')
UR, WS = 'Ubuntu-Red Hat Server', 'Windows 7-Server 2008'
U = 'UDP'; thr, rtt, cpu, jit = 'throughput_mbps', 'rtt_ms', 'cpu_pct', 'jitter_ms'
MEAN_NOTE = 'mean over packet lengths 128, 384, 640, 896, 1152 and 1408 bytes'
L = 'IV.A Throughput Performance, Fig. 2'
sn = 'for IPv4 using Ubuntu-Red Hat Server the throughput is 774.46 Mbps (6.5% higher than Windows Server 2008.) at packet length of 1408 bytes'
S.add(L, thr, 'mean', '774.46', 'Mbps', sn, os=UR, ip=4, transport=U, size=1408, note='stated as an example of the highest throughput')
S.add(L, thr, 'pct_diff', '6.5', '%', sn, os=UR, ip=4, transport=U, size=1408, compared_to='Windows Server 2008 (Windows 7-Server 2008), IPv4, 1408 bytes', note='base of percentage not stated')
sn = 'For IPv6, the highest throughput is achieved (725 Mbps) for Ubuntu-Red Hat Server. This is about 7.5% higher than the throughput obtained under Windows Server 2008 at packet-length of 1408 bytes'
S.add(L, thr, 'max', '725', 'Mbps', sn, os=UR, ip=6, transport=U, size=1408)
S.add(L, thr, 'pct_diff', '7.5', '%', sn, os=UR, ip=6, transport=U, size=1408, compared_to='Windows Server 2008 (Windows 7-Server 2008), IPv6, 1408 bytes', note='approximate; base of percentage not stated')
L = 'IV.A Throughput Performance'
S.add(L, thr, 'pct_diff', '5.9', '%', 'We found that IPv4 offers about 5.9% higher throughput than IPv6 for both Windows and Red Hat Servers',
      ip=4, transport=U, compared_to='IPv6, both OS pairs', note='approximate; Table II prints 6.1 and 6.4 for this comparison')
S.add(L, thr, 'pct_diff', '5.7', '%', 'Red Hat Server is achieved about 5.7% higher throughput than Windows Server for both IPv6 and IPv4',
      os=UR, transport=U, compared_to=WS + ', both IP versions', note='approximate; Table II prints 5.9 and 6.2 for this comparison')
L = 'Table II'
sn = 'Ubuntu - Red Hat Server 438.68 411.83 6.1'
S.add(L, thr, 'mean', '438.68', 'Mbps', sn, os=UR, ip=4, transport=U, note=MEAN_NOTE)
S.add(L, thr, 'mean', '411.83', 'Mbps', sn, os=UR, ip=6, transport=U, note=MEAN_NOTE)
S.add(L, thr, 'pct_diff', '6.1', '%', sn, os=UR, ip=4, transport=U, compared_to='IPv6, same OS pair', note='column "IPv4 achieves higher throughput than IPv6 (%)"; ' + MEAN_NOTE)
sn = 'Windows 7 - Server 2008 412.92 386.33 6.4'
S.add(L, thr, 'mean', '412.92', 'Mbps', sn, os=WS, ip=4, transport=U, note=MEAN_NOTE)
S.add(L, thr, 'mean', '386.33', 'Mbps', sn, os=WS, ip=6, transport=U, note=MEAN_NOTE)
S.add(L, thr, 'pct_diff', '6.4', '%', sn, os=WS, ip=4, transport=U, compared_to='IPv6, same OS pair', note='column "IPv4 achieves higher throughput than IPv6 (%)"; ' + MEAN_NOTE)
sn = 'Red Hat Server achieves higher throughput (%) 5.9 6.2'
S.add(L, thr, 'pct_diff', '5.9', '%', sn, os=UR, ip=4, transport=U, compared_to=WS + ', same IP version', note='row "Red Hat Server achieves higher throughput (%)", IPv4 column')
S.add(L, thr, 'pct_diff', '6.2', '%', sn, os=UR, ip=6, transport=U, compared_to=WS + ', same IP version', note='row "Red Hat Server achieves higher throughput (%)", IPv6 column')
L = 'IV.B RTT Performance, Fig. 3'
sn = 'On Windows 7 Server 2008, the lowest latency is 1.27 ms for both IPv4 and IPv6'
S.add(L, rtt, 'min', '1.27', 'ms', sn, os=WS, ip=4, transport=U, note='one printed number stated for both IP versions')
S.add(L, rtt, 'min', '1.27', 'ms', sn, os=WS, ip=6, transport=U, note='one printed number stated for both IP versions')
sn = 'The highest delays are 4.67 ms and 4.09 ms, for IPv4 and IPv6 respectively'
S.add(L, rtt, 'max', '4.67', 'ms', sn, os=WS, ip=4, transport=U)
S.add(L, rtt, 'max', '4.09', 'ms', sn, os=WS, ip=6, transport=U)
sn = 'on Ubuntu-RHES, the lowest RTT is 1.37 ms for IPv4 and 1.35 ms for IPv6'
S.add(L, rtt, 'min', '1.37', 'ms', sn, os=UR, ip=4, transport=U)
S.add(L, rtt, 'min', '1.35', 'ms', sn, os=UR, ip=6, transport=U)
sn = 'The highest latency is 4.92 ms for IPv4 and 4.33 ms for IPv6 at packet length of 1408 bytes on Ubuntu-RHES'
S.add(L, rtt, 'max', '4.92', 'ms', sn, os=UR, ip=4, transport=U, size=1408)
S.add(L, rtt, 'max', '4.33', 'ms', sn, os=UR, ip=6, transport=U, size=1408)
S.add(L, rtt, 'max', '4.67', 'ms', 'compared to 4.67 ms for Windows Server 2008 also recording at the largest packet-size of 128 bytes',
      os=WS, ip=4, transport=U, size=128, note='printed "largest packet-size of 128 bytes": 128 is the smallest tested length; 1408 probably meant')
L = 'Table III'
sn = 'Ubuntu - Red Hat Server 2.78 1.88 32.4'
S.add(L, rtt, 'mean', '2.78', 'ms', sn, os=UR, ip=4, transport=U, note='table gives no averaging rule; probably ' + MEAN_NOTE)
S.add(L, rtt, 'mean', '1.88', 'ms', sn, os=UR, ip=6, transport=U, note='table gives no averaging rule; probably ' + MEAN_NOTE)
S.add(L, rtt, 'pct_diff', '32.4', '%', sn, os=UR, ip=4, transport=U, compared_to='IPv6, same OS pair', note='column "IPv6 achieves lower RTT (%)"; IPv4 higher')
sn = 'Windows 7 - Server 2008 2.51 1.79 28.7'
S.add(L, rtt, 'mean', '2.51', 'ms', sn, os=WS, ip=4, transport=U, note='table gives no averaging rule; probably ' + MEAN_NOTE)
S.add(L, rtt, 'mean', '1.79', 'ms', sn, os=WS, ip=6, transport=U, note='table gives no averaging rule; probably ' + MEAN_NOTE)
S.add(L, rtt, 'pct_diff', '28.7', '%', sn, os=WS, ip=4, transport=U, compared_to='IPv6, same OS pair', note='column "IPv6 achieves lower RTT (%)"; IPv4 higher')
sn = 'Windows achieves slightly lower RTT (%) 9.7 4.8'
S.add(L, rtt, 'pct_diff', '9.7', '%', sn, os=UR, ip=4, transport=U, compared_to=WS + ', same IP version', note='row "Windows achieves slightly lower RTT (%)", IPv4 column; Ubuntu-Red Hat higher')
S.add(L, rtt, 'pct_diff', '4.8', '%', sn, os=UR, ip=6, transport=U, compared_to=WS + ', same IP version', note='row "Windows achieves slightly lower RTT (%)", IPv6 column; Ubuntu-Red Hat higher')
L = 'Table IV'
sn = 'Ubuntu - Red Hat Server 23.8 20 16'
S.add(L, cpu, 'mean', '23.8', '%', sn, os=UR, ip=4, transport=U, host='client', note='table gives no averaging rule; text calls 23.80 the "minimum utilization"')
S.add(L, cpu, 'mean', '20', '%', sn, os=UR, ip=6, transport=U, host='client', note='table gives no averaging rule; text calls 19.97 the "minimum utilization"')
S.add(L, cpu, 'pct_diff', '16', '%', sn, os=UR, ip=4, transport=U, host='client', compared_to='IPv6, same OS pair', note='column "IPv6 uses less CPU processing power (%)"; IPv4 higher')
sn = 'Windows 7 - Server 2008 27.7 25.3 8.7'
S.add(L, cpu, 'mean', '27.7', '%', sn, os=WS, ip=4, transport=U, host='client', note='table gives no averaging rule; text calls 27.66 the "minimum utilization"')
S.add(L, cpu, 'mean', '25.3', '%', sn, os=WS, ip=6, transport=U, host='client', note='table gives no averaging rule; text calls 25.34 the "minimum utilization"')
S.add(L, cpu, 'pct_diff', '8.7', '%', sn, os=WS, ip=4, transport=U, host='client', compared_to='IPv6, same OS pair', note='column "IPv6 uses less CPU processing power (%)"; IPv4 higher')
sn = 'Ubuntu uses less CPU processing power (%) 14.1 20.9'
S.add(L, cpu, 'pct_diff', '14.1', '%', sn, os=WS, ip=4, transport=U, host='client', compared_to=UR + ', same IP version', note='row "Ubuntu uses less CPU processing power (%)", IPv4 column; Windows higher')
S.add(L, cpu, 'pct_diff', '20.9', '%', sn, os=WS, ip=6, transport=U, host='client', compared_to=UR + ', same IP version', note='row "Ubuntu uses less CPU processing power (%)", IPv6 column; Windows higher')
L = 'IV.C Jitter and CPU usage Performance, Fig. 5'
sn = 'minimum utilization for Ubuntu is 23.80% for IPv4 and 19.97% for IPv6 compared to 27.66% for IPv4 and 25.34% for IPv6 on Windows 7'
S.add(L, cpu, 'min', '23.80', '%', sn, os=UR, ip=4, transport=U, host='client')
S.add(L, cpu, 'min', '19.97', '%', sn, os=UR, ip=6, transport=U, host='client')
S.add(L, cpu, 'min', '27.66', '%', sn, os=WS, ip=4, transport=U, host='client')
S.add(L, cpu, 'min', '25.34', '%', sn, os=WS, ip=6, transport=U, host='client')
L = 'IV.D Summary of findings'
S.add(L, thr, 'pct_diff', '6', '%', 'IPv4 achieved approximately 6% higher throughput than IPv6 for both Windows and Red Hat Servers',
      ip=4, transport=U, compared_to='IPv6, both OS pairs', note='approximate')
S.add(L, thr, 'pct_diff', '6', '%', 'Red Hat Server achieved about 6% higher throughput than Windows Server for both protocols',
      os=UR, transport=U, compared_to=WS + ', both IP versions', note='approximate')
S.add(L, rtt, 'pct_diff', '30', '%', 'IPv6 achieved about 30% lower RTT than IPv4 for both OSs',
      ip=4, transport=U, compared_to='IPv6, both OS pairs (IPv6 lower)', note='approximate; row is the IPv4 (higher) cell')
S.add(L, rtt, 'pct_diff', '5', '%', 'Windows Server achieved about 5% lower RTTs than Red Hat Server for IPv6',
      os=UR, ip=6, transport=U, compared_to=WS + ', IPv6 (Windows lower)', note='approximate; row is the Ubuntu-Red Hat (higher) cell')
S.add(L, jit, 'pct_diff', '20', '%', 'Windows Server achieved about 20% lower Jitter than RHES for both protocols',
      os=UR, transport=U, compared_to=WS + ', both IP versions (Windows lower)', note='approximate; no jitter values are printed anywhere in the study')
S.add(L, cpu, 'pct_diff', '3.5', '%', 'IPv6 consumed about 3.5% less CPU power than IPv4 for both Windows 7 and Ubuntu',
      ip=4, transport=U, host='client', compared_to='IPv6, both OS pairs (IPv6 lower)', note='approximate; Table IV prints 16 and 8.7')
S.add(L, cpu, 'pct_diff', '10', '%', 'Ubuntu consumed about 10% less CPU power than Windows 7',
      os=WS, transport=U, host='client', compared_to=UR + ' (Ubuntu lower)', note='approximate; Table IV prints 14.1 and 20.9')
L = 'V. Conclusion'
sn = 'Ubuntu-RHES offers an average throughput of 411.83 Mbps compared to 386.33 Mbps on Windows 7-Server 2008 network'
S.add(L, thr, 'mean', '411.83', 'Mbps', sn, os=UR, ip=6, transport=U, note=MEAN_NOTE)
S.add(L, thr, 'mean', '386.33', 'Mbps', sn, os=WS, ip=6, transport=U, note=MEAN_NOTE)
sn = 'RHES offers an average throughput of 438.68 Mbps compared to 412.92 Mbps on the Windows 7 Server 2008'
S.add(L, thr, 'mean', '438.68', 'Mbps', sn, os=UR, ip=4, transport=U, note=MEAN_NOTE)
S.add(L, thr, 'mean', '412.92', 'Mbps', sn, os=WS, ip=4, transport=U, note=MEAN_NOTE)
sn = 'UDP average RTT was lowest on Windows 7-Server 2008 for IPv4 (2.51 ms compared to 2.78 ms for Ubuntu-RHES)'
S.add(L, rtt, 'mean', '2.51', 'ms', sn, os=WS, ip=4, transport=U)
S.add(L, rtt, 'mean', '2.78', 'ms', sn, os=UR, ip=4, transport=U)
sn = 'RTT was also lowest on Windows 7-Server 2008 (1.79 ms compared to 1.88 ms for Ubuntu-RHES)'
S.add(L, rtt, 'mean', '1.79', 'ms', sn, os=WS, ip=6, transport=U)
S.add(L, rtt, 'mean', '1.88', 'ms', sn, os=UR, ip=6, transport=U)
S.write()
