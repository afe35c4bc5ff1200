# pixels.py: a rendered page against its reference image, both 8-bit
# greyscale PGM (pdftoppm -gray); the reference may be gzipped.  Pixels
# further apart than 96 levels count as different; the page matches when
# at most 0.3% differ, which a glyph drawn in the wrong order, unjoined,
# with a mark off its letter or in another font always exceeds (a single
# letter of 9.5 pt at 100 dpi is about 0.05% of the crop), while
# anti-aliasing noise between poppler builds stays under it.
#   python3 tests/pixels.py GOT.pgm REF.pgm[.gz]
import gzip, sys

def read_pgm(path):
    data = (gzip.open if path.endswith(".gz") else open)(path, "rb").read()
    fields, pos = [], 0
    while len(fields) < 4:
        while data[pos:pos + 1].isspace():
            pos += 1
        if data[pos:pos + 1] == b"#":
            pos = data.index(b"\n", pos)
            continue
        end = pos
        while not data[end:end + 1].isspace():
            end += 1
        fields.append(data[pos:end])
        pos = end
    assert fields[0] == b"P5", "not an 8-bit greyscale PGM: " + path
    w, h = int(fields[1]), int(fields[2])
    return w, h, data[pos + 1:pos + 1 + w * h]

gw, gh, got = read_pgm(sys.argv[1])
rw, rh, ref = read_pgm(sys.argv[2])
if (gw, gh) != (rw, rh):
    sys.exit("size %dx%d, the reference is %dx%d" % (gw, gh, rw, rh))
diff = sum(1 for a, b in zip(got, ref) if abs(a - b) > 96)
share = diff / float(gw * gh)
print("%d of %d pixels differ (%.3f%%)" % (diff, gw * gh, 100 * share))
sys.exit(0 if share <= 0.003 else 1)
