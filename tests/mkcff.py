"""Makes the CFF test fonts of tests/fixtures/fonts from DejaVu Sans:
the printable ASCII letters drawn with the same outlines as PostScript
(cubic) charstrings, and the Hangul of "한국어 보고서" mapped onto some
of them so a CJK fallback can be tested without a 20 MB font.

    python3 tests/mkcff.py DejaVuSans.ttf OUT.otf name|cid

`name` writes a name-keyed CFF (glyphs selected by glyph id); `cid`
a CID-keyed one whose CIDs are not its glyph ids (1000 + n - gid, in
reverse), so a reader that took one for the other draws wrong letters.
Development-only: the fonts are committed; this says how they were made.
"""
import sys
from fontTools.ttLib import TTFont
from fontTools import subset
from fontTools.fontBuilder import FontBuilder
from fontTools.pens.t2CharStringPen import T2CharStringPen
from fontTools.cffLib import FDArrayIndex, FontDict, FDSelect

HANGUL = {0xD55C: 'H', 0xAD6D: 'K', 0xC5B4: 'O', 0xBCF4: 'B', 0xACE0: 'G', 0xC11C: 'S'}

src, dst, mode = sys.argv[1:4]
tt = TTFont(src)
opts = subset.Options()
opts.notdef_outline = True
opts.layout_features = []
sub = subset.Subsetter(opts)
sub.populate(unicodes=range(0x20, 0x7F))
sub.subset(tt)
gs = tt.getGlyphSet()
order = tt.getGlyphOrder()
cmap = tt.getBestCmap()
n = len(order)
if mode == 'cid':
    names = ['.notdef'] + ['cid%05d' % (1000 + n - i) for i in range(1, n)]
else:
    names = order
ren = dict(zip(order, names))
cs, hm = {}, {}
for g in order:
    pen = T2CharStringPen(tt['hmtx'][g][0], gs)
    gs[g].draw(pen)
    cs[ren[g]] = pen.getCharString()
    hm[ren[g]] = tt['hmtx'][g]
umap = {u: ren[g] for u, g in cmap.items()}
for u, ch in HANGUL.items():
    umap[u] = ren[cmap[ord(ch)]]
fb = FontBuilder(tt['head'].unitsPerEm, isTTF=False)
fb.setupGlyphOrder(names)
fb.setupCharacterMap(umap)
ps = 'TestCFF-' + mode
fb.setupCFF(ps, {'FullName': ps}, cs, {})
fb.setupHorizontalMetrics(hm)
fb.setupHorizontalHeader(ascent=tt['hhea'].ascent, descent=tt['hhea'].descent)
fb.setupNameTable({'familyName': 'TestCFF', 'styleName': 'Regular', 'psName': ps})
fb.setupOS2(sTypoAscender=tt['hhea'].ascent, usWinAscent=tt['hhea'].ascent,
            usWinDescent=-tt['hhea'].descent)
fb.setupPost()
fb.updateHead(created=0, modified=0)
if mode == 'cid':
    # one FontDict holding the Private DICT; its matrix is the identity,
    # as the top DICT's already scales from font units
    cff = fb.font['CFF '].cff
    td = cff.topDictIndex[0]
    td.ROS = ('Adobe', 'Identity', 0)
    td.CIDCount = 1000 + n + 1
    fda = FDArrayIndex()
    fda.strings = getattr(td, 'strings', None)
    fda.GlobalSubrs = td.GlobalSubrs
    fd = FontDict()
    fd.Private = td.Private
    fd.FontMatrix = [1, 0, 0, 1, 0, 0]
    fda.append(fd)
    td.FDArray = fda
    sel = FDSelect()
    sel.format = 3
    sel.gidArray = [0] * n
    td.FDSelect = sel
    td.CharStrings.fdArray = fda
    td.CharStrings.fdSelect = sel
    td.rawDict.pop('Private', None)
    del td.Private
fb.save(dst)
