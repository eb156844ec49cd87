"""004 (thesis): percentages auto-extracted sentence by sentence from chapters 4.4-7, plus manual rows."""
import re
from common import Study, norm, PAPERS
STEM = '004_a7738a926cf50bd6'
S = Study(STEM, testbed='sender - router1 - router2 - receiver, Gigabit Ethernet, jumbo frames', size_kind='frame')
lines = (PAPERS / f'{STEM}.txt').read_text(encoding='utf-8').split('\n')
START, END = 2881, 11508          # 0-based: '4.4 Determining the Optimal Value' .. before '7.1 Further Study'
SIZES = ['1518', '2455', '3392', '4329', '5266', '6203', '7140', '8037', '9014']
OS_PATTERNS = [('Windows Server 2008', r'Server 2008(?! and 2003)'), ('Windows Server 2003', r'Server 2003|Server 2008 and 2003'),
               ('Windows Server 2008', r'Server 2008 and 2003'), ('Windows 7', r'Windows 7'), ('Fedora', r'Fedora'),
               ('Ubuntu', r'Ubuntu'), ('OpenSUSE', r'OpenSUSE')]
HEADING = re.compile(r'^\s*([4-7](?:\.\d+)+)\s+([A-Z].*)$')
CAPTION = re.compile(r'^\s*Figure\s+([4-6]-[\d-]+\d)\s*:\s*(.*)$')
METRICS = [('packets_dropped', r'packets? (dropped|lost|loss)|dropped'), ('cpu_pct', r'CPU'), ('jitter_ms', r'[Jj]itter'),
           ('owd_ms', r'[Dd]elay|OWD'), ('throughput_mbps', r'[Tt]hroughput')]
APPS = [('DNS', r'DNS'), ('games', r'[Gg]ames?\b'), ('VoIP', r'VoIP|CODEC')]
SUBAPPS = r'G\.7\d\d\.\d|CSa|CSi|Quake ?3'

def first_match(table, text):
    for name, pat in table:
        if re.search(pat, text):
            return name
    return ''

def ip_of(text):
    v6, v4 = 'IPv6' in text or 'Ipv6' in text, 'IPv4' in text or 'Ipv4' in text
    return '6' if v6 and not v4 else '4' if v4 and not v6 else ''

def transport_of(text):
    t, u = 'TCP' in text, 'UDP' in text
    return 'TCP' if t and not u else 'UDP' if u and not t else ''

def blocks():
    """Yield (context, text) blocks split at headings, captions, blank runs and bullet starts."""
    ctx = dict(section='', heading='', figure='', caption='')
    buf = []
    def flush():
        if buf:
            yield dict(ctx), ' '.join(buf)
            buf.clear()
    for raw in lines[START:END]:
        h, c = HEADING.match(raw), CAPTION.match(raw)
        if h and not re.search(r'\d\s*%', raw):
            yield from flush(); ctx.update(section=h.group(1), heading=h.group(2), figure='', caption=''); continue
        if c:
            yield from flush(); ctx.update(figure=c.group(1), caption=c.group(2)); continue
        if re.match(r'^ [A-Z]', raw):          # bullet start (glyph lost in extraction)
            yield from flush()
        if raw.strip():
            buf.append(raw.strip())
    yield from flush()

def sentences(text):
    return [s for s in re.split(r'(?<=[.!?])\s+(?=[A-Z])', norm(text)) if s]

def nearest_os(sentence, pos):
    best, best_pos = '', -1
    for name, pat in OS_PATTERNS:
        for m in re.finditer(pat, sentence[:pos]):
            if m.start() > best_pos:
                best, best_pos = name, m.start()
    return best

def compared_phrase(sentence, pos):
    m = re.search(r'\b(than|compared to|compared with|from)\s+([^,.;()]+)', sentence[pos:])
    return m.group(0).strip() if m else ''

def locator(ctx):
    sec = f"section {ctx['section']}" if ctx['section'] else ''
    return f"{sec}, Figure {ctx['figure']}" if ctx['figure'] and ctx['section'].startswith('5') else sec

def add_pct_rows(ctx, sentence):
    sec = ctx['section']; chap = sec.split('.')[0]
    structural = chap == '5' and sec != '5.4'
    scope = ctx['heading'] + ' ' + ctx['caption'] if structural else sentence
    metric = first_match(METRICS, ctx['heading']) if structural else first_match(METRICS, sentence)
    metric = metric or first_match(METRICS, ctx['caption'] + ' ' + ctx['heading']) or 'unspecified'
    host = (re.search(r'Router ?([12])', ctx['heading'] + ' ' + ctx['caption']) or re.search(r'Router ?([12])', sentence)) if metric == 'cpu_pct' else None
    app = first_match(APPS, ctx['heading'] if structural else sentence)
    subs = sorted(set(m.replace(' ', '') for m in re.findall(SUBAPPS, sentence)))
    ip = ip_of(ctx['caption'] or ctx['heading']) if structural else ''
    ip = ip or ip_of(sentence)
    transport = (transport_of(ctx['caption']) or transport_of(ctx['heading'])) if structural else ''
    transport = transport or transport_of(sentence)
    named = re.search(r'TCP|UDP', ctx['heading'] + ctx['caption'])
    if structural and not transport and not app and not named:
        transport = 'TCP' if sec.startswith('5.1') else 'UDP' if sec.startswith('5.2') else ''
    sizes = [s for s in SIZES if s in sentence]
    if chap == '4':
        sizes = sorted(set(re.findall(r'\b(3224|6448|9672|12896|16120)\b', sentence)), key=int)
        metric, transport, ip = 'throughput_mbps', 'TCP', '6'
    for m in re.finditer(r'(\d+(?:\.\d+)?)\s?%', sentence):
        vp, pos = m.group(1), m.start()
        before = sentence[max(0, pos - 12):pos]
        stat = 'max_pct_diff' if re.search(r'up to\s*$', before) else 'pct_diff'
        notes = ['auto-extracted from the sentence: os = nearest OS named before the value, compared_to = following "than/compared to/from" phrase; verify against snippet']
        if re.search(r'(around|almost|about|approximately|nearly)\s*$', before):
            notes.append('approximate')
        if len(sizes) > 1:
            notes.append('sentence names frame sizes ' + ', '.join(sizes))
        if len(subs) > 1:
            notes.append('sentence names ' + ', '.join(subs))
        if metric == 'cpu_pct':
            notes.append('percentage of CPU time: percentage points or relative difference not stated')
        if chap == '4':
            notes.append('pilot runs to choose the optimal values (Windows Server 2008, TCP over IPv6); sizes are packet sizes')
        after = sentence[m.end():m.end() + 45]
        local_size = next((x for x in SIZES if x in after), '') if len(sizes) > 1 else (sizes[0] if sizes else '')
        local_sub = re.search(SUBAPPS, after)
        sub = local_sub.group(0).replace(' ', '') if local_sub and len(subs) > 1 else (subs[0] if len(subs) == 1 else '')
        if len(sizes) > 1 and local_size:
            notes.append(f'size {local_size} taken from the words right after the value')
        S.add(locator(ctx), metric, stat, vp, '%', sentence, os=nearest_os(sentence, pos) if chap != '4' else 'Windows Server 2008',
              ip=ip, transport=transport, size=local_size,
              compared_to=compared_phrase(sentence, m.end()),
              application=(app + (' ' + sub if sub else '')).strip(),
              host=f'Router {host.group(1)}' if host else '', note='; '.join(notes),
              size_kind='packet' if chap == '4' else 'frame')

for ctx, text in blocks():
    for sentence in sentences(text):
        if re.search(r'\d\s?%', sentence):
            add_pct_rows(ctx, sentence)

# manual rows: absolute values printed in the text
L = 'section 5.1.3, Figure 5-1-5'
S.add(L, 'owd_ms', 'diff', '.290', 'ms', 'Microsoft Windows Server 2008 produced .290ms more delay than Microsoft Windows Server 2003 which produces the second highest quantity of delays',
      os='Windows Server 2008', ip=4, transport='TCP', compared_to='Windows Server 2003, TCP IPv4', note='frame size not stated; printed ".290ms"')
L = 'section 4.4'
S.add(L, 'throughput_mbps', 'min', '400', 'Mbps', 'most of the time, throughputs stay above 400 Mbps for all of the packet sizes',
      os='Windows Server 2008', ip=6, transport='TCP', note='pilot runs (Figures 4-11 to 4-13); a lower bound stated "most of the time"')
L = 'section 6.1, Figures 6-2 and 6-3'
sn = 'the average packet rate for the frame size 4096 Bytes dropped considerably to just over 492 packets per seconds. When comparing that to over 13349 packets per seconds of frame size 4095 Bytes'
S.add(L, 'packet_rate_pps', 'mean', '492', 'packets/s', sn, os='Windows Server 2008', ip=6, transport='TCP', size=4096, note='extra experiment (ITGDec output); "just over"')
S.add(L, 'packet_rate_pps', 'mean', '13349', 'packets/s', sn, os='Windows Server 2008', ip=6, transport='TCP', size=4095, note='extra experiment (ITGDec output); "over"')
sn = 'The total packets received for frame size 4095 was 801789 while only 29536 received for frame size 4096, which is a difference of 772253 packets'
S.add(L, 'packets_received', 'count', '801789', 'packets', sn, os='Windows Server 2008', ip=6, transport='TCP', size=4095, note='extra experiment, one run')
S.add(L, 'packets_received', 'count', '29536', 'packets', sn, os='Windows Server 2008', ip=6, transport='TCP', size=4096, note='extra experiment, one run')
S.add(L, 'packets_received', 'diff', '772253', 'packets', sn, os='Windows Server 2008', ip=6, transport='TCP', size=4095,
      compared_to='frame size 4096 Bytes', note='801789 - 29536 = 772253')
S.add(L, 'packets_received', 'diff', '772253', 'packets', 'According to Figure 6-2 and 6-3, there is 772253 packets difference',
      os='Windows Server 2008', ip=6, transport='TCP', size=4095, compared_to='frame size 4096 Bytes')
S.write()
