from common import Study
S = Study('000_4e5320b6fe1e825c', testbed='802.11n peer-to-peer WLAN via AP, open system')
W7, XP, F12 = 'Windows 7', 'Windows XP', 'Fedora 12'
T, U = 'TCP', 'UDP'
thr, rtt = 'throughput_mbps', 'rtt_ms'
L = '6.A Throughput, Figure 2'
sn = 'IPv4 TCP throughput results ranged from 39.12 to 44.96 Mbps'
S.add(L, thr, 'range_min', '39.12', 'Mbps', sn, os=W7, ip=4, transport=T)
S.add(L, thr, 'range_max', '44.96', 'Mbps', sn, os=W7, ip=4, transport=T)
sn = 'IPv6 TCP throughput values were from 37.24 to 44.13 Mbps'
S.add(L, thr, 'range_min', '37.24', 'Mbps', sn, os=W7, ip=6, transport=T)
S.add(L, thr, 'range_max', '44.13', 'Mbps', sn, os=W7, ip=6, transport=T)
S.add(L, thr, 'max_diff', '1.88', 'Mbps', 'The maximum difference between IPv4 and IPv6 for Windows 7 was 1.88 Mbps on packet size 128 bytes',
      os=W7, ip=4, transport=T, size=128, compared_to='IPv6, same OS and size')
sn = 'IPv6 provided 1.98 Mbps (37.50 Mbps compared to 35.52 Mbps) more TCP throughput than IPv4'
S.add(L, thr, 'diff', '1.98', 'Mbps', sn, os=XP, ip=6, transport=T, size=1152, compared_to='IPv4, same OS and size')
S.add(L, thr, 'mean', '37.50', 'Mbps', sn, os=XP, ip=6, transport=T, size=1152)
S.add(L, thr, 'mean', '35.52', 'Mbps', sn, os=XP, ip=4, transport=T, size=1152)
S.add(L, thr, 'max_diff', '3.11', 'Mbps', 'The highest point of difference in Windows XP between IPv4 and IPv6 was 3.11 Mbps on packet size 640 bytes',
      os=XP, ip=4, transport=T, size=640, compared_to='IPv6, same OS and size',
      note='direction not printed; IPv4 assumed higher (text: IPv4 higher for most packet sizes)')
S.add(L, thr, 'max_diff', '2.10', 'Mbps', 'The highest gap between IPv4 and IPv6 for Fedora 12 was 2.10 Mbps on packet size of 384 bytes',
      os=F12, ip=4, transport=T, size=384, compared_to='IPv6, same OS and size', note='IPv4 higher for all sizes per text')
sn = 'the highest TCP bandwidths were for Fedora 12 (48.27 Mbps for IPv4 and 47.88 Mbps for IPv6 at packet size of 1408)'
S.add(L, thr, 'max', '48.27', 'Mbps', sn, os=F12, ip=4, transport=T, size=1408)
S.add(L, thr, 'max', '47.88', 'Mbps', sn, os=F12, ip=6, transport=T, size=1408)
sn = 'followed by Windows 7 (44.96 Mbps for IPv4 and 44.13 for IPv6)'
S.add(L, thr, 'max', '44.96', 'Mbps', sn, os=W7, ip=4, transport=T, note='packet size not printed (1408 implied by sentence)')
S.add(L, thr, 'max', '44.13', 'Mbps', sn, os=W7, ip=6, transport=T, note='packet size not printed (1408 implied by sentence)')
sn = 'the lowest bandwidth were for Windows XP (41.83 Mbps for IPv4 and 38.23 for IPv6)'
S.add(L, thr, 'max', '41.83', 'Mbps', sn, os=XP, ip=4, transport=T, note='highest XP value; packet size not printed (1408 implied by sentence)')
S.add(L, thr, 'max', '38.23', 'Mbps', sn, os=XP, ip=6, transport=T, note='highest XP value; packet size not printed (1408 implied by sentence)')
cols = [dict(os=o, ip=i) for o in (W7, XP, F12) for i in (4, 6)]
S.table('Table 2', thr, 'sd', 'Mbps', ['128 0.93 0.91 0.55 0.98 0.97 0.85', '384 0.61 0.88 0.98 0.99 0.65 0.93',
        '640 0.97 0.88 0.87 0.88 0.96 0.64', '896 0.82 1.00 0.93 0.96 0.96 0.97', '1152 0.88 1.28 0.92 0.99 0.98 0.58',
        '1408 0.96 1.07 0.90 0.98 0.98 0.83'], cols, transport=T, note='Table 2: Standard Deviation for TCP Throughput; columns Windows 7 IPv4/IPv6, Windows XP IPv4/IPv6, Fedora 12 IPv4/IPv6; header "acket size" garbled')
L = '6.A Throughput, Figure 3'
sn = 'the highest TCP throughput was 48.27 Mbps (Fedora 12 using IPv4) while the highest UDP throughput was 115.92 Mbps (Fedora 12 using IPv4)'
S.add(L, thr, 'max', '48.27', 'Mbps', sn, os=F12, ip=4, transport=T, note='over all operating systems')
S.add(L, thr, 'max', '115.92', 'Mbps', sn, os=F12, ip=4, transport=U, note='over all operating systems')
S.add(L, thr, 'max_diff', '7.37', 'Mbps', 'The maximum difference was noticeable at packet size 1152 bytes, where IPv4 outperformed IPv6 by 7.37 Mbps',
      os=W7, ip=4, transport=U, size=1152, compared_to='IPv6, same OS and size')
S.add(L, thr, 'max_diff', '8.98', 'Mbps', 'the most noticeable difference of UDP throughput between IPv4 and IPv6 was 8.98 Mbps on packet size 1408 bytes',
      os=XP, ip=4, transport=U, size=1408, compared_to='IPv6, same OS and size', note='IPv4 higher per text ("IPv4 again outperformed IPv6 for all operating systems")')
sn = 'the highest UDP throughputs were 115.92 Mbps (for IPv4) and 109.78 Mbps (for IPv6) for packet size of 1408'
S.add(L, thr, 'max', '115.92', 'Mbps', sn, os=F12, ip=4, transport=U, size=1408)
S.add(L, thr, 'max', '109.78', 'Mbps', sn, os=F12, ip=6, transport=U, size=1408)
sn = 'Windows 7 at 111.46 Mbps (for IPv4) and 107.21 Mbps (for IPv6)'
S.add(L, thr, 'max', '111.46', 'Mbps', sn, os=W7, ip=4, transport=U, note='packet size not printed (1408 implied by sentence)')
S.add(L, thr, 'max', '107.21', 'Mbps', sn, os=W7, ip=6, transport=U, note='packet size not printed (1408 implied by sentence)')
sn = 'Windows XP had 101.93 Mbps (for IPv4) and 92.95 Mbps for IPv6'
S.add(L, thr, 'max', '101.93', 'Mbps', sn, os=XP, ip=4, transport=U, note='packet size not printed (1408 implied by sentence)')
S.add(L, thr, 'max', '92.95', 'Mbps', sn, os=XP, ip=6, transport=U, note='packet size not printed (1408 implied by sentence)')
S.table('Table 3', thr, 'sd', 'Mbps', ['128 0.93 0.91 0.98 0.86 0.98 0.73', '384 0.61 0.88 0.99 0.96 0.47 0.48',
        '640 0.97 0.88 0.88 0.97 0.52 0.65', '896 0.82 1.00 0.96 0.96 0.68 0.94', '1152 0.88 1.28 0.99 0.91 0.91 0.93',
        '1408 0.96 1.07 0.98 0.98 0.98 0.87'], cols, transport=U, note='Table 3: Standard Deviation for UDP Throughput; Windows 7 columns identical to Table 2')
L = '6.B Round-trip time, Figure 4'
sn = 'the highest difference of TCP RTT between IPv4 and IPv6 was 0.06 ms on packet sizes 384 and 640 bytes'
for sz in (384, 640):
    S.add(L, rtt, 'max_diff', '0.06', 'ms', sn, os=W7, ip=6, transport=T, size=sz, compared_to='IPv4, same OS and size',
          note='one printed number stated for two sizes; IPv6 higher (IPv4 outperformed IPv6 for all sizes)')
S.add(L, rtt, 'max_diff', '0.14', 'ms', 'the maximum difference was at packet size 384 bytes, where IPv4 had 0.14 ms less TCP RTT values than IPv6',
      os=XP, ip=6, transport=T, size=384, compared_to='IPv4, same OS and size')
S.add(L, rtt, 'max_diff', '0.08', 'ms', 'the highest point of difference between IPv4 and IPv6 can be noted at the packet size 1408 bytes, where IPv4 had 0.08ms lower TCP latency than IPv6',
      os=F12, ip=6, transport=T, size=1408, compared_to='IPv4, same OS and size')
sn = 'where IPv4 on Windows XP had 0.3ms higher TCP RTT and IPv6 had 0.28ms more TCP RTT than Fedora 12'
S.add(L, rtt, 'max_diff', '0.3', 'ms', sn, os=XP, ip=4, transport=T, size=1408, compared_to='Fedora 12, same IP version and size')
S.add(L, rtt, 'max_diff', '0.28', 'ms', sn, os=XP, ip=6, transport=T, size=1152, compared_to='Fedora 12, same IP version and size')
sn = 'where IPv4 on Fedora 12 had 0.23ms less TCP RTT, and IPv6 had 0.22ms lower RTT values than Windows 7'
S.add(L, rtt, 'max_diff', '0.23', 'ms', sn, os=W7, ip=4, transport=T, size=1152, compared_to='Fedora 12, same IP version and size')
S.add(L, rtt, 'max_diff', '0.22', 'ms', sn, os=W7, ip=6, transport=T, size=1152, compared_to='Fedora 12, same IP version and size')
S.add(L, rtt, 'diff', '0.15', 'ms', 'with one exception at packet size 128 bytes for IPv4, where Windows 7 had 0.15ms higher TCP RTT',
      os=W7, ip=4, transport=T, size=128, compared_to='Windows XP, same IP version and size')
S.table('Table 4', rtt, 'sd', 'ms', ['128 0.09 0.03 0.02 0.02 0.02 0.03', '384 0.05 0.03 0.07 0.04 0.06 0.02',
        '640 0.02 0.03 0.02 0.01 0.05 0.03', '896 0.03 0.03 0.06 0.01 0.04 0.02', '1152 0.03 0.04 0.05 0.01 0.03 0.02',
        '1408 0.02 0.02 0.02 0.04 0.02 0.02'], cols, transport=T, note='Table 4: Standard Deviation for TCP RTT')
L = '6.B Round-trip time, Figure 5'
S.add(L, rtt, 'max_diff', '0.14', 'ms', 'The greatest difference between IPv4 and IPv6 was about 0.14 ms on packet size 640 bytes',
      os=W7, ip=6, transport=U, size=640, compared_to='IPv4, same OS and size', note='approximate ("about"); IPv4 better for all sizes')
S.add(L, rtt, 'max_diff', '0.14', 'ms', 'the highest gap was on packet size 1384 bytes, where IPv4 had 0.14 ms less UDP RTT than IPv6',
      os=XP, ip=6, transport=U, size=1384, compared_to='IPv4, same OS and size', note='size 1384 bytes as printed; not one of the tested sizes (128..1408 step 256)')
S.add(L, rtt, 'max_diff', '0.16', 'ms', 'the most noticeable difference of UDP RTT between IPv4 and IPv6 was 0.16ms on packet size 1152 bytes',
      os=F12, ip=6, transport=U, size=1152, compared_to='IPv4, same OS and size', note='direction not printed; IPv6 assumed higher (text: IPv6 slightly higher delay on all three OSs)')
sn = 'where Window 7 had 0.23ms more UDP RTT values on IPv4 and 0.12ms higher UDP RTT values on IPv6 than Fedora 12'
S.add(L, rtt, 'max_diff', '0.23', 'ms', sn, os=W7, ip=4, transport=U, size=1408, compared_to='Fedora 12, same IP version and size')
S.add(L, rtt, 'max_diff', '0.12', 'ms', sn, os=W7, ip=6, transport=U, size=1408, compared_to='Fedora 12, same IP version and size')
sn = 'where Windows XP had 0.26ms more UDP RTT for IPv4 and 0.18ms higher UDP RTT for IPv6 than Fedora 12'
S.add(L, rtt, 'max_diff', '0.26', 'ms', sn, os=XP, ip=4, transport=U, size=1408, compared_to='Fedora 12, same IP version and size')
S.add(L, rtt, 'max_diff', '0.18', 'ms', sn, os=XP, ip=6, transport=U, size=384, compared_to='Fedora 12, same IP version and size')
sn = 'where Windows 7 had 0.06ms less UDP RTT for both IPv4 and IPv6 than Windows XP'
S.add(L, rtt, 'max_diff', '0.06', 'ms', sn, os=XP, ip=4, transport=U, size=896, compared_to='Windows 7, same IP version and size', note='one printed number stated for IPv4 at 896 and IPv6 at 384')
S.add(L, rtt, 'max_diff', '0.06', 'ms', sn, os=XP, ip=6, transport=U, size=384, compared_to='Windows 7, same IP version and size', note='one printed number stated for IPv4 at 896 and IPv6 at 384')
S.table('Table 5', rtt, 'sd', 'ms', ['128 0.03 0.03 0.03 0.02 0.04 0.03', '384 0.05 0.04 0.03 0.03 0.04 0.02',
        '640 0.07 0.05 0.02 0.03 0.03 0.03', '896 0.03 0.03 0.04 0.03 0.02 0.03', '1152 0.05 0.03 0.04 0.03 0.01 0.05',
        '1408 0.07 0.06 0.04 0.04 0.03 0.03'], cols, transport=U, note='Table 5: Standard Deviation for UDP RTT')
S.write()
