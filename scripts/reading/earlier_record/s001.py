from common import Study
S = Study('001_67ed56f85540d5f7', testbed='802.11n peer-to-peer WLAN via AP')
W7, F12 = 'Windows 7', 'Fedora 12'
T = 'TCP'; thr, rtt = 'throughput_mbps', 'rtt_ms'
O, W = 'open', 'WPA2'
def rng(L, metric, unit, sn, lo, hi, **kw):
    S.add(L, metric, 'range_min', lo, unit, sn, transport=T, **kw)
    S.add(L, metric, 'range_max', hi, unit, sn, transport=T, **kw)
L = 'V, Figure 2'
rng(L, thr, 'Mbps', 'On Windows 7, IPv4 TCP throughput results range from 39.12 to 44.96 Mbps', '39.12', '44.96', os=W7, ip=4, security=O)
rng(L, thr, 'Mbps', 'IPv6 TCP throughput values are from 37.24 to 44.13 Mbps', '37.24', '44.13', os=W7, ip=6, security=O)
S.add(L, thr, 'max_diff', '1.88', 'Mbps', 'The maximum difference between IPv4 and IPv6 on open system is 1.88 Mbps on packet size 128 bytes',
      os=W7, ip=4, security=O, transport=T, size=128, compared_to='IPv6, same OS, security and size')
rng(L, thr, 'Mbps', 'TCP throughput t results of IPv4 range from 40.86 to 48.27 Mbps', '40.86', '48.27', os=F12, ip=4, security=O)
rng(L, thr, 'Mbps', 'IPv6 values are from 39.76 to 47.88 Mbps', '39.76', '47.88', os=F12, ip=6, security=O)
S.add(L, thr, 'max_diff', '2.10', 'Mbps', 'The highest point of difference between IPv4 and IPv6 is 2.10 Mbps on packet size 384 bytes',
      os=F12, ip=4, security=O, transport=T, size=384, compared_to='IPv6, same OS, security and size')
S.add(L, thr, 'bound', '6', 'Mbps', 'the ranges are within +/-6 Mbps of each other', os='', security=O, transport=T,
      compared_to='Windows 7 vs Fedora 12, both IP versions', note='printed as "+/-6 Mbps"')
sn = 'where IPv4 on Windows 7 has 5.34 Mbps less throughput than IPv4 on Fedora 12, and IPv6 on Fedora 12 has 6.22 Mbps higher throughput than IPv6 on Windows 7'
S.add(L, thr, 'max_diff', '5.34', 'Mbps', sn, os=F12, ip=4, security=O, transport=T, size=1152, compared_to='Windows 7, same IP version, security and size')
S.add(L, thr, 'max_diff', '6.22', 'Mbps', sn, os=F12, ip=6, security=O, transport=T, size=1152, compared_to='Windows 7, same IP version, security and size')
L = 'V, Figure 3'
rng(L, thr, 'Mbps', 'the TCP throughout results of IPv4 on Windows 7 range from 37.46 to 42.15 Mbps', '37.46', '42.15', os=W7, ip=4, security=W)
rng(L, thr, 'Mbps', 'IPv6 values are from 35.16 to 41.30 Mbps', '35.16', '41.30', os=W7, ip=6, security=W)
S.add(L, thr, 'max_diff', '2.63', 'Mbps', 'The highest point of difference between IPv4 and IPv6 on WPA2 security enabled is 2.63 Mbps on packet size 1152 bytes',
      os=W7, ip=4, security=W, transport=T, size=1152, compared_to='IPv6, same OS, security and size')
rng(L, thr, 'Mbps', 'For Fedora 12, IPv4 throughout results range from 37.31 to 46.11 Mbps', '37.31', '46.11', os=F12, ip=4, security=W)
rng(L, thr, 'Mbps', 'IPv6 values are from 36.59 to 45.14 Mbps', '36.59', '45.14', os=F12, ip=6, security=W)
S.add(L, thr, 'max_diff', '0.98', 'Mbps', 'The highest gap between IPv4 and IPv6 is 0.98 Mbps on packet size 1152 bytes',
      os=F12, ip=4, security=W, transport=T, size=1152, compared_to='IPv6, same OS, security and size', note='IPv4 higher assumed (text: IPv4 outperforms IPv6)')
sn = 'where Fedora 12 has 4.82 Mbps higher throughput than Windows 7 for IPv4, and 6.47 Mbps higher throughput for IPv6'
S.add(L, thr, 'max_diff', '4.82', 'Mbps', sn, os=F12, ip=4, security=W, transport=T, size=1152, compared_to='Windows 7, same IP version, security and size')
S.add(L, thr, 'max_diff', '6.47', 'Mbps', sn, os=F12, ip=6, security=W, transport=T, size=1152, compared_to='Windows 7, same IP version, security and size')
L = 'V, Figures 2 and 3'
sn = 'bytes where IPv4 has 2.81 Mbps and IPv6 has 2.83 Mbps higher throughput on open system than WPA2 security enabled'
S.add(L, thr, 'max_diff', '2.81', 'Mbps', sn, os=W7, ip=4, security=O, transport=T, size=1408, compared_to='WPA2, same OS, IP version and size')
S.add(L, thr, 'max_diff', '2.83', 'Mbps', sn, os=W7, ip=6, security=O, transport=T, size=1408, compared_to='WPA2, same OS, IP version and size')
sn = 'where IPv4 provides 3.55 Mbps and IPv6 provides 3.17 Mbps higher throughput in the open environment'
S.add(L, thr, 'max_diff', '3.55', 'Mbps', sn, os=F12, ip=4, security=O, transport=T, size=128, compared_to='WPA2, same OS, IP version and size')
S.add(L, thr, 'max_diff', '3.17', 'Mbps', sn, os=F12, ip=6, security=O, transport=T, size=128, compared_to='WPA2, same OS, IP version and size')
cols = [dict(os=o, security=s, ip=i) for o in (W7, F12) for s in (O, W) for i in (4, 6)]
S.table('Table 1', thr, 'sd', 'Mbps', ['128 0.95 0.83 0.99 0.89 0.97 0.85 0.98 0.99', '384 1.00 1.13 0.97 0.88 0.65 0.93 0.56 0.97',
        '640 0.99 1.07 0.94 0.90 0.96 0.64 0.98 0.86', '896 0.75 1.05 0.99 0.85 0.96 0.97 0.84 0.89',
        '1152 0.86 0.96 0.96 0.90 0.98 0.58 0.97 0.83', '1408 0.97 0.99 0.95 0.58 0.98 0.83 0.98 0.81'], cols, transport=T,
        note='TABLE 1 STANDARD DEVIATION FOR THROUGHPUT; columns Windows 7 (Open IPv4, Open IPv6, WPA2 IPv4, WPA2 IPv6), Fedora 12 (same order)')
L = 'V, Figure 4'
rng(L, rtt, 'ms', 'on Windows 7, IPv4 TCP RTT range from 1.40 to 1.48 ms', '1.40', '1.48', os=W7, ip=4, security=O)
rng(L, rtt, 'ms', 'IPv6 TCP RTT rates are from 1.44 to 1.83 ms', '1.44', '1.83', os=W7, ip=6, security=O)
S.add(L, rtt, 'max_diff', '0.11', 'ms', 'The maximum difference between IPv4 and IPv6 on open system is 0.11 ms on packet size 896 bytes',
      os=W7, ip=6, security=O, transport=T, size=896, compared_to='IPv4, same OS, security and size', note='direction not printed; IPv6 assumed higher')
rng(L, rtt, 'ms', 'Fedora 12 RTT results exhibit that IPv4 RTT range from 1.20 to 1.44 ms', '1.20', '1.44', os=F12, ip=4, security=O)
rng(L, rtt, 'Mbps', 'IPv6 RTT values are from 1.24 to 1.52 Mbps', '1.24', '1.52', os=F12, ip=6, security=O,
    note='unit printed as Mbps for an RTT; ms meant')
S.add(L, rtt, 'max_diff', '0.08', 'Mbps', 'The highest point of difference between IPv4 and IPv6 is 0.08 Mbps on packet size 1408 bytes',
      os=F12, ip=6, security=O, transport=T, size=1408, compared_to='IPv4, same OS, security and size', note='unit printed as Mbps for an RTT; ms meant; direction not printed, IPv6 assumed higher')
sn = 'where IPv4 on Windows 7 has 0.23 ms more latency than IPv4 on Fedora 12, and IPv6 on Windows 7 had also 0.23 ms more latency than IPv6 on Fedora 12'
S.add(L, rtt, 'max_diff', '0.23', 'ms', sn, os=W7, ip=4, security=O, transport=T, size=1152, compared_to='Fedora 12, same IP version, security and size')
S.add(L, rtt, 'max_diff', '0.23', 'ms', sn, os=W7, ip=6, security=O, transport=T, size=1152, compared_to='Fedora 12, same IP version, security and size')
L = 'V, Figure 5'
rng(L, rtt, 'ms', 'the TCP RTT results of IPv4 on Windows 7 range from 1.20 to 1.44 ms', '1.20', '1.44', os=W7, ip=4, security=W)
rng(L, rtt, 'ms', 'IPv6 TCP RTT is from 1.31 to 1.52 ms', '1.31', '1.52', os=W7, ip=6, security=W)
S.add(L, rtt, 'max_diff', '0.08', 'ms', 'the maximum difference between IPv4 and IPv6 on WPA2 security enabled is 0.08 ms on packet size 1408 bytes',
      os=W7, ip=6, security=W, transport=T, size=1408, compared_to='IPv4, same OS, security and size', note='direction not printed; IPv6 assumed higher')
rng(L, rtt, 'ms', 'For Fedora 12, IPv4 TCP RTT range from 1.30 to 1.64 ms', '1.30', '1.64', os=F12, ip=4, security=W)
rng(L, rtt, 'ms', 'IPv6 TCP RTT is from 1.40 to 1.73 ms', '1.40', '1.73', os=F12, ip=6, security=W)
S.add(L, rtt, 'max_diff', '0.15', 'ms', 'The highest gap between IPv4 and IPv6 is 0.15 ms on packet size 640 bytes',
      os=F12, ip=6, security=W, transport=T, size=640, compared_to='IPv4, same OS, security and size', note='direction not printed; IPv6 assumed higher')
sn = 'where IPv4 on Windows 7 has 0.19 ms higher delay than IPv4 on Fedora 12, and IPv6 on Windows 7 has 0.12 ms higher delay than IPv6 on Fedora 12'
S.add(L, rtt, 'max_diff', '0.19', 'ms', sn, os=W7, ip=4, security=W, transport=T, size=640, compared_to='Fedora 12, same IP version, security and size')
S.add(L, rtt, 'max_diff', '0.12', 'ms', sn, os=W7, ip=6, security=W, transport=T, size=896, compared_to='Fedora 12, same IP version, security and size')
L = 'V, Figures 4 and 5'
sn = 'where IPv4 with no security has 0.18 ms and IPv6 with no security has0.19 ms less delay than on WPA2 security enabled'
S.add(L, rtt, 'max_diff', '0.18', 'ms', sn, os=W7, ip=4, security=W, transport=T, size=640, compared_to='open system, same OS, IP version and size')
S.add(L, rtt, 'max_diff', '0.19', 'ms', sn, os=W7, ip=6, security=W, transport=T, size=896, compared_to='open system, same OS, IP version and size')
sn = 'where IPv4 with no security has 0.20 ms lower latency than WPA2, and IPv6 with no security has 0.21 ms lower latency than WPA2'
S.add(L, rtt, 'max_diff', '0.20', 'ms', sn, os=F12, ip=4, security=W, transport=T, size=1408, compared_to='open system, same OS, IP version and size')
for sz in (1152, 1408):
    S.add(L, rtt, 'max_diff', '0.21', 'ms', sn, os=F12, ip=6, security=W, transport=T, size=sz, compared_to='open system, same OS, IP version and size',
          note='one printed number stated for sizes 1152 and 1408')
S.table('Table 2', rtt, 'sd', 'ms', ['128 0.09 0.03 0.04 0.02 0.02 0.03 0.04 0.03', '384 0.05 0.03 0.03 0.02 0.06 0.02 0.04 0.03',
        '640 0.02 0.03 0.02 0.04 0.05 0.03 0.04 0.04', '896 0.03 0.03 0.03 0.06 0.04 0.02 0.03 0.03',
        '1152 0.03 0.04 0.04 0.05 0.03 0.02 0.04 0.04', '1408 0.02 0.02 0.05 0.05 0.02 0.02 0.04 0.03'], cols, transport=T,
        note='TABLE 2 STANDARD DEVIATION FOR RTT; columns as Table 1')
L = 'VI. Conclusion'
sn = 'enabling WPA2 results in approximately 2.8 Mbps less TCP throughput and 0.18 ms more delay than open system for both IPV4 and IPv6 on Windows 7'
S.add(L, thr, 'diff', '2.8', 'Mbps', sn, os=W7, security=O, transport=T, compared_to='WPA2, same OS (both IP versions)', note='approximate; summary effect (no size); open system higher')
S.add(L, rtt, 'diff', '0.18', 'ms', sn, os=W7, security=W, transport=T, compared_to='open system, same OS (both IP versions)', note='summary effect (no size); WPA2 higher')
sn = 'enabling WPA2 causes 3 Mbps less TCP throughput and 0.20 ms more TCP RTT than open system for both IPV4 and IPv6 on Fedora 12'
S.add(L, thr, 'diff', '3', 'Mbps', sn, os=F12, security=O, transport=T, compared_to='WPA2, same OS (both IP versions)', note='summary effect (no size); open system higher')
S.add(L, rtt, 'diff', '0.20', 'ms', sn, os=F12, security=W, transport=T, compared_to='open system, same OS (both IP versions)', note='summary effect (no size); WPA2 higher')
S.add(L, thr, 'max', '48', 'Mbps', 'Peer-Peer wireless LANs can provide upto 48Mbps', transport=T,
      note='over both OSs; the 180Mbps in the same sentence is from the authors\' separate client-server experiments, not recorded')
S.write()
