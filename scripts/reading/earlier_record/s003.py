from common import Study
S = Study('003_78d69edb35c6dd71')
CS, PP = '802.11ac client-server (server wired to AP)', '802.11ac peer-to-peer via AP'
WIN, UBU = 'Windows', 'Ubuntu'
T, U = 'TCP', 'UDP'; thr, rtt, cpu = 'throughput_mbps', 'rtt_ms', 'cpu_pct'
def a(L, m, st, vp, unit, sn, tb, os, ip='', tr='', size='', cmp='', note=''):
    S.add(L, m, st, vp, unit, sn, testbed=tb, os=os, ip=ip, transport=tr, size=size, compared_to=cmp, note=note)
L = 'V, Figure 1'
sn = 'IPv4 reached the highest TCP throughput of 652Mbps for all packet sizes tested, while IPv6 reached 568Mbps'
a(L, thr, 'max', '652', 'Mbps', sn, CS, WIN, 4, T); a(L, thr, 'max', '568', 'Mbps', sn, CS, WIN, 6, T)
sn = 'IPv4 also gave the highest TCP throughput of 562Mbps and IPv6 with 486Mbps which happens to be the lowest'
a(L, thr, 'max', '562', 'Mbps', sn, PP, WIN, 4, T); a(L, thr, 'max', '486', 'Mbps', sn, PP, WIN, 6, T, note='highest IPv6 peer-to-peer value, described as "the lowest" of the four maxima')
a(L, thr, 'diff', '84', 'Mbps', 'For client- server, IPv4 is much higher than IPv6 by 84Mbps difference', CS, WIN, 4, T, cmp='IPv6 client-server', note='difference of the maxima (652-568)')
a(L, thr, 'diff', '76', 'Mbps', 'For peer-to-peer, IPv4 is also higher by 76Mbps than IPv6', PP, WIN, 4, T, cmp='IPv6 peer-to-peer', note='difference of the maxima (562-486)')
L = 'V, Figure 2'
sn = 'IPv4 client-server clearly has the highest throughput of 757Mbps, while IPv6 peer-to-peer has the lowest of 528Mbps'
a(L, thr, 'max', '757', 'Mbps', sn, CS, WIN, 4, U); a(L, thr, 'max', '528', 'Mbps', sn, PP, WIN, 6, U, note='"the lowest" of the four curves\' maxima (675-528=147 printed as the peer-to-peer difference)')
sn = 'with IPv6 peer to peer being the highest by 1Mbps (client server; 354Mbps, peer-to-peer; 355Mbps)'
a(L, thr, 'diff', '1', 'Mbps', sn, PP, WIN, 6, U, 512, cmp='IPv6 client-server, 512 bytes')
a(L, thr, 'mean', '354', 'Mbps', sn, CS, WIN, 6, U, 512); a(L, thr, 'mean', '355', 'Mbps', sn, PP, WIN, 6, U, 512)
a(L, thr, 'diff', '103', 'Mbps', 'For client-server, IPv4 is much higher than IPv6 by 103Mbps', CS, WIN, 4, U, cmp='IPv6 client-server', note='difference of the maxima (implies IPv6 client-server max 654)')
a(L, thr, 'diff', '147', 'Mbps', 'For peer-to-peer, IPv4 is also higher by 147Mbps than IPv6', PP, WIN, 4, U, cmp='IPv6 peer-to-peer', note='difference of the maxima (675-528)')
sn = 'Comparing TCP and UDP for client- server, IPv4 UDP gave the highest throughput of 757Mbps and IPv6 TCP with the lowest throughput of 568Mbps'
a(L, thr, 'max', '757', 'Mbps', sn, CS, WIN, 4, U); a(L, thr, 'max', '568', 'Mbps', sn, CS, WIN, 6, T, note='max of IPv6 TCP (Figure 1), "lowest" among the maxima')
sn = 'For peer-to-peer, IPv4 UDP also gave the highest throughput of 675Mbps with IPv6 TCP the lowest at 486Mbps'
a(L, thr, 'max', '675', 'Mbps', sn, PP, WIN, 4, U); a(L, thr, 'max', '486', 'Mbps', sn, PP, WIN, 6, T, note='max of IPv6 TCP (Figure 1), "lowest" among the maxima')
L = 'V, Figure 3'
a(L, rtt, 'diff', '0.01', 'ms', 'except for packet size 512 where peer-to-peer is negligibly higher than client-server by 0.01ms', PP, WIN, 6, T, 512, cmp='IPv6 client-server, 512 bytes')
L = 'V, Figure 4'
sn = 'At packet sizes 384 and 512 Bytes, both client- server and peer-to-peer IPv6 gave the RTT of 0.2ms and then dropped down to 0.19ms'
for tb in (CS, PP):
    for sz in (384, 512):
        a(L, rtt, 'mean', '0.2', 'ms', sn, tb, WIN, 6, U, sz, note='one printed number for both topologies at 384 and 512 bytes')
    a(L, rtt, 'mean', '0.19', 'ms', sn, tb, WIN, 6, U, note='assignment uncertain: size not printed ("then dropped down"), presumably 640 bytes; stated for both topologies')
sn = 'At packet size 768 Bytes, they both provided 0.23ms which are quite higher than IPv4'
a(L, rtt, 'mean', '0.23', 'ms', sn, CS, WIN, 6, U, 768, note='one printed number for both topologies'); a(L, rtt, 'mean', '0.23', 'ms', sn, PP, WIN, 6, U, 768, note='one printed number for both topologies')
sn = 'where it gave a round trip time of 0.18ms which is an increase from the round trip time of 0.12ms at packet size 640Bytes'
a(L, rtt, 'mean', '0.18', 'ms', sn, CS, WIN, 4, U, 768); a(L, rtt, 'mean', '0.12', 'ms', sn, CS, WIN, 4, U, 640)
a(L, rtt, 'mean', '0.19', 'ms', 'at packet size 1024 Bytes, the client- server’s TCP round trip time dropped down to 0.19ms', CS, WIN, 4, U, 1024,
  note='paragraph is about UDP RTT (Figure 4) but says "TCP round trip time"; recorded as UDP')
sn = 'for client- server itself, IPv6 UDP gave the highest round trip time of 0.26ms while IPv4 TCP gave the lowest of 0.17ms'
a(L, rtt, 'max', '0.26', 'ms', sn, CS, WIN, 6, U); a(L, rtt, 'min', '0.17', 'ms', sn, CS, WIN, 4, T, note='conflicts with 0.12 ms (IPv4 UDP client-server, 640 bytes) unless "lowest" means lowest maximum')
sn = 'For peer- to-peer, IPv6 UDP also gives the highest round trip time of 0.27ms and IPv4 TCP with the lowest of 0.17ms'
a(L, rtt, 'max', '0.27', 'ms', sn, PP, WIN, 6, U); a(L, rtt, 'min', '0.17', 'ms', sn, PP, WIN, 4, T)
L = 'V, Figure 5'
sn = 'IPv6 in peer-to- peer usage increased to 2.90% and became slightly higher than client-server (2.84%)'
a(L, cpu, 'mean', '2.90', '%', sn, PP, WIN, 6, T, 896); a(L, cpu, 'mean', '2.84', '%', sn, CS, WIN, 6, T, 896)
sn = 'For IPv4, peer-to-peer has the higher CPU usage than client-server; the highest being at 3.21% and client-server at 2.94%'
a(L, cpu, 'max', '3.21', '%', sn, PP, WIN, 4, T); a(L, cpu, 'max', '2.94', '%', sn, CS, WIN, 4, T)
L = 'V, Figure 6'
a(L, cpu, 'min', '1.87', '%', 'The lowest CPU usage . of 1.87% was recorded at the largest packet size of 1408Bytes for IPv4 client-server', CS, WIN, 4, U, 1408,
  note='sentence broken by a page break in the extraction ("The lowest CPU usage . of 1.87%")')
sn = 'For IPv6 itself, client-server gave the highest CPU usage of 2.98% and peer-to-peer at 2.77%'
a(L, cpu, 'max', '2.98', '%', sn, CS, WIN, 6, U, note='text also says the highest UDP CPU usage was at 128 bytes for IPv6 client-server'); a(L, cpu, 'max', '2.77', '%', sn, PP, WIN, 6, U)
sn = 'IPv6 TCP has the highest CPU usage of 2.81% and IPv4 UDP with the lowest of 1.87%'
a(L, cpu, 'max', '2.81', '%', sn, CS, WIN, 6, T, note='conflicts with 2.84% (IPv6 TCP client-server at 896, Figure 5) and 2.98% (IPv6 UDP client-server)')
a(L, cpu, 'min', '1.87', '%', sn, CS, WIN, 4, U)
sn = 'For peer-to-peer, IPv6 TCP has the highest of 2.69% CPU usage and 1.99% usage for IPv4 UDP'
a(L, cpu, 'max', '2.69', '%', sn, PP, WIN, 6, T, note='conflicts with 2.90% (IPv6 TCP peer-to-peer at 896) and 3.21% (IPv4 TCP peer-to-peer), Figure 5')
a(L, cpu, 'min', '1.99', '%', sn, PP, WIN, 4, U)
L = 'V, Figure 7'
sn = 'IPv4 reached a maximum throughput of 664Mbps and IPv6 at 496Mbps. This gives a difference of 168Mbps between the two protocols at the largest packet size of 1408Bytes'
a(L, thr, 'max', '664', 'Mbps', sn, CS, UBU, 4, T, 1408); a(L, thr, 'max', '496', 'Mbps', sn, CS, UBU, 6, T, 1408)
a(L, thr, 'diff', '168', 'Mbps', sn, CS, UBU, 4, T, 1408, cmp='IPv6 client-server, 1408 bytes')
a(L, thr, 'max_diff', '200', 'Mbps', 'The highest difference between the two was point for client-server was 200Mbps at packet size 512 Bytes', CS, UBU, 4, T, 512, cmp='IPv6 client-server, 512 bytes')
sn = 'At packet 512 Bytes, throughput reached 557Mbps then drops by 5Mbps at packet 640 Bytes (552Mbps)'
a(L, thr, 'mean', '557', 'Mbps', sn, CS, UBU, 4, T, 512)
a(L, thr, 'diff', '5', 'Mbps', sn, CS, UBU, 4, T, 512, cmp='IPv4 client-server, 640 bytes')
a(L, thr, 'mean', '552', 'Mbps', sn, CS, UBU, 4, T, 640)
sn = 'For peer-to-peer, IPv4 gives the highest throughput of 622Mbps and IPv6 has 511Mbps, giving a difference of 111Mbps at the highest packet size of 1408 Bytes'
a(L, thr, 'max', '622', 'Mbps', sn, PP, UBU, 4, T, 1408); a(L, thr, 'max', '511', 'Mbps', sn, PP, UBU, 6, T, 1408)
a(L, thr, 'diff', '111', 'Mbps', sn, PP, UBU, 4, T, 1408, cmp='IPv6 peer-to-peer, 1408 bytes')
sn = 'peer-to-peer setup was 143Mbps at packet size 128 (IPv4 was 397Mbps, IPv6 – was 254Mbps)'
a(L, thr, 'max_diff', '143', 'Mbps', sn, PP, UBU, 4, T, 128, cmp='IPv6 peer-to-peer, 128 bytes')
a(L, thr, 'mean', '397', 'Mbps', sn, PP, UBU, 4, T, 128); a(L, thr, 'mean', '254', 'Mbps', sn, PP, UBU, 6, T, 128)
a(L, thr, 'max', '664', 'Mbps', 'IPv4 client-server has the higher maximum throughput (664Mbps)', CS, UBU, 4, T)
L = 'V, Figure 8'
sn = 'IPv4 reached the highest throughput of 798Mbps while IPv6 was 557Mbps'
a(L, thr, 'max', '798', 'Mbps', sn, CS, UBU, 4, U); a(L, thr, 'max', '557', 'Mbps', sn, CS, UBU, 6, U)
a(L, thr, 'max_diff', '255', 'Mbps', 'The highest difference point between IPv4 and IPv6 was 255Mbps at packet size 896 Bytes', CS, UBU, 4, U, 896, cmp='IPv6 client-server, 896 bytes')
sn = 'IPv4 also has the higher throughput of 690Mbps. IPv6 reached the maximum throughput of 560Mbps giving the difference of 130Mbps between IPv4 and IPv6'
a(L, thr, 'max', '690', 'Mbps', sn, PP, UBU, 4, U); a(L, thr, 'max', '560', 'Mbps', sn, PP, UBU, 6, U)
a(L, thr, 'diff', '130', 'Mbps', sn, PP, UBU, 4, U, cmp='IPv6 peer-to-peer', note='difference of the maxima')
a(L, thr, 'max_diff', '152', 'Mbps', 'The highest difference point for a packet size was 152Mbps at packet size of 256 Bytes', PP, UBU, 4, U, 256, cmp='IPv6 peer-to-peer, 256 bytes')
sn = 'Overall, IPv4 client-server shows the highest throughput (798Mbps) and IPv6 peer-to-peer being the lowest (557Mbps)'
a(L, thr, 'max', '798', 'Mbps', sn, CS, UBU, 4, U)
a(L, thr, 'max', '557', 'Mbps', sn, PP, UBU, 6, U, note='557 was given above as IPv6 client-server; IPv6 peer-to-peer maximum was printed as 560')
L = 'V, Figure 9'
sn = 'For the client-server setup, IPv6 has the highest RTT of 0.19ms at the largest packet size and IPv4 at 0.15ms'
a(L, rtt, 'max', '0.19', 'ms', sn, CS, UBU, 6, T, 1408); a(L, rtt, 'max', '0.15', 'ms', sn, CS, UBU, 4, T, 1408)
sn = 'except for packet size 384 where the round trip time is 0.03ms which is a 0.01ms drop from the previous packet'
a(L, rtt, 'mean', '0.03', 'ms', sn, CS, UBU, 4, T, 384)
a(L, rtt, 'diff', '0.01', 'ms', sn, CS, UBU, 4, T, 256, cmp='IPv4 client-server, 384 bytes', note='"previous packet" = 256 bytes')
sn = 'At packet size 384 and 512, the round trip time remains the same at 0.09ms'
a(L, rtt, 'mean', '0.09', 'ms', sn, CS, UBU, 6, T, 384); a(L, rtt, 'mean', '0.09', 'ms', sn, CS, UBU, 6, T, 512)
sn = 'The maximum difference between the two is 0.01ms at the largest packet size (IPv6 - 0.2, IPv4 – 0.19)'
a(L, rtt, 'max_diff', '0.01', 'ms', sn, PP, UBU, 6, T, 1408, cmp='IPv4 peer-to-peer, 1408 bytes')
a(L, rtt, 'mean', '0.2', 'ms', sn, PP, UBU, 6, T, 1408); a(L, rtt, 'mean', '0.19', 'ms', sn, PP, UBU, 4, T, 1408)
sn = 'Overall, IPv4 client-server has less round trip time of all packet sizes and for both setups (0.15ms) outperforming IPv6 peer-to-peer which has the highest round trip time of 0.2ms, giving a difference of 0.05ms between the two'
a(L, rtt, 'max', '0.15', 'ms', sn, CS, UBU, 4, T); a(L, rtt, 'max', '0.2', 'ms', sn, PP, UBU, 6, T)
a(L, rtt, 'diff', '0.05', 'ms', sn, PP, UBU, 6, T, cmp='IPv4 client-server', note='difference of the maxima')
L = 'V, Figure 10'
sn = 'The highest time recorded was 0.24ms for IPv6 and 0.22ms for IPv4'
a(L, rtt, 'max', '0.24', 'ms', sn, CS, UBU, 6, U); a(L, rtt, 'max', '0.22', 'ms', sn, CS, UBU, 4, U)
sn = 'For IPv6 the round trip time also increases except for packet 256 where its less by 0.02ms than both 128 and 384 (0.16ms)'
a(L, rtt, 'diff', '0.02', 'ms', sn, CS, UBU, 6, U, 128, cmp='IPv6 client-server at 256 bytes (also 384 vs 256)', note='one printed number for two comparisons (128 vs 256 and 384 vs 256)')
a(L, rtt, 'mean', '0.16', 'ms', sn, CS, UBU, 6, U, note='assignment uncertain: 0.16 ms is either the 128/384-byte value or the 256-byte value')
sn = 'For peer-to-peer, IPv4 has less round trip time than IPv6 (0.17 and 0.21)'
a(L, rtt, 'max', '0.17', 'ms', sn, PP, UBU, 4, U, note='assignment uncertain: no size printed; 0.21-0.17 matches the 0.04 ms difference "at the largest packet size"')
a(L, rtt, 'max', '0.21', 'ms', sn, PP, UBU, 6, U, note='assignment uncertain: no size printed; 0.21 also printed for IPv6 at 1152 and 1408')
a(L, rtt, 'max_diff', '0.04', 'ms', 'IPv4 clearly outperformed IPv6 as the maximum difference between the two was 0.04ms at the largest packet size', PP, UBU, 6, U, 1408, cmp='IPv4 peer-to-peer, 1408 bytes')
sn = 'For IPv4, there are points where round trip time remains the same (packet sizes 768 and 1024 Bytes) where they were both at 0.14ms'
a(L, rtt, 'mean', '0.14', 'ms', sn, PP, UBU, 4, U, 768); a(L, rtt, 'mean', '0.14', 'ms', sn, PP, UBU, 4, U, 1024)
a(L, rtt, 'diff', '0.01', 'ms', 'For packet size 896 Bytes where round trip time is less by 0.01ms', PP, UBU, 4, U, 768, cmp='IPv4 peer-to-peer, 896 bytes', note='896 bytes is 0.01 ms below 768/1024 (0.14 ms)')
sn = 'For IPv6, packets 256 and 384 Bytes both remain at 0.15ms as well as packets 1152 and 1408 at 0.21ms'
a(L, rtt, 'mean', '0.15', 'ms', sn, PP, UBU, 6, U, 256); a(L, rtt, 'mean', '0.15', 'ms', sn, PP, UBU, 6, U, 384)
a(L, rtt, 'mean', '0.21', 'ms', sn, PP, UBU, 6, U, 1152); a(L, rtt, 'mean', '0.21', 'ms', sn, PP, UBU, 6, U, 1408)
L = 'V, Figure 11'
a(L, cpu, 'max', '5.1', '%', 'For client-server, the highest CPU usage was 5.1% for IPv6 at packet size 128 Bytes', CS, UBU, 6, T, 128)
sn = 'For the largest packet size (1408), IPv6 has the highest CPU of 4.38% with a difference of 0.35% from IPv4'
a(L, cpu, 'mean', '4.38', '%', sn, CS, UBU, 6, T, 1408); a(L, cpu, 'diff', '0.35', '%', sn, CS, UBU, 6, T, 1408, cmp='IPv4 client-server, 1408 bytes', note='percentage points')
sn = 'For peer-to-peer, IPv6 had the highest CPU utilization of 3.18%. IPv4 had the lowest of 3.11% at packet size 128bytes'
a(L, cpu, 'max', '3.18', '%', sn, PP, UBU, 6, T, 128, note='size 128 from the later sentence')
a(L, cpu, 'mean', '3.11', '%', sn, PP, UBU, 4, T, 128, note='called "the lowest" but is the IPv4 value at 128 bytes; IPv4 at 1408 is 2.47-0.15=2.32')
sn = 'At packet size 1408Bytes, IPv6’s CPU usage was 2.47% with IPv4 being less by 0.15%'
a(L, cpu, 'mean', '2.47', '%', sn, PP, UBU, 6, T, 1408); a(L, cpu, 'diff', '0.15', '%', sn, PP, UBU, 6, T, 1408, cmp='IPv4 peer-to-peer, 1408 bytes', note='percentage points')
sn = 'IPv6 clearly had the most CPU utilization with IPv6 client- server at 5.1% and IPv4 peer-to-peer at 3.18% at packet size 128Bytes'
a(L, cpu, 'max', '5.1', '%', sn, CS, UBU, 6, T, 128)
a(L, cpu, 'max', '3.18', '%', sn, PP, UBU, 4, T, 128, note='printed as "IPv4 peer-to-peer"; 3.18% was given above as IPv6 peer-to-peer')
L = 'V, Figure 12'
sn = 'IPv6 had the highest CPU utilization of 4.37% with IPv4 being the lowest at 4.32% for packet size 128Bytes'
a(L, cpu, 'max', '4.37', '%', sn, CS, UBU, 6, U, 128); a(L, cpu, 'mean', '4.32', '%', sn, CS, UBU, 4, U, 128, note='called "the lowest"; IPv4 at 1408 is 3.59-0.29=3.30')
sn = 'At packet size 1408 Byte, IPv6’s CPU usage was 3.59% which was higher than IPv4 by 0.29%'
a(L, cpu, 'mean', '3.59', '%', sn, CS, UBU, 6, U, 1408); a(L, cpu, 'diff', '0.29', '%', sn, CS, UBU, 6, U, 1408, cmp='IPv4 client-server, 1408 bytes', note='percentage points')
sn = 'IPv6 had the highest CPU utilization of 3.04% at packet size 128 Bytes. At this point, IPv4’s CPU usage was 2.85%'
a(L, cpu, 'max', '3.04', '%', sn, PP, UBU, 6, U, 128); a(L, cpu, 'mean', '2.85', '%', sn, PP, UBU, 4, U, 128)
a(L, cpu, 'mean', '2.03', '%', 'With the largest packet size, IPv6 had the highest utilization of 2.03%', PP, UBU, 6, U, 1408, note='"highest" relative to IPv4 at the same size')
S.write()
