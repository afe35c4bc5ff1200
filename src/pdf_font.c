#include "pdf_font.h"
#include "pdf_cff.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trainbudget/buf.h"
#include "trainbudget/fileio.h"
#include "trainbudget/xalloc.h"

/* The largest font file read: the biggest CJK TrueType collections Debian
 * ships are about 20 MB. */
#define S_MAX_FILE_BYTES (64u << 20)

typedef struct S_range {
	uint32_t start, end;
	uint32_t delta;         /* format 4: idDelta; format 12: start glyph */
	uint32_t ro_pos;        /* format 4: where idRangeOffset points from, or 0 */
} S_range;

typedef struct S_cid {
	unsigned gid;           /* in the font */
	uint32_t uni;           /* the one character, or where in text[] several start */
	unsigned nuni;
} S_cid;

struct tb_pdf_font {
	unsigned char *data;
	size_t len;
	bool mapped;            /* data is the file mapped, not a copy */
	size_t head, hhea, maxp, hmtx, loca, glyf, cmap, os2, cvt, fpgm, prep;
	size_t head_len, hhea_len, maxp_len, hmtx_len, loca_len, glyf_len, cvt_len,
	       fpgm_len, prep_len, os2_len;
	unsigned upem, nglyphs, nhmetrics;
	bool long_loca;
	int ascent, descent, cap_height;
	int bbox[4];
	S_range *ranges;
	size_t nranges;
	bool format12;
	char name[64];
	/* CIDs in order of first use; CID 0 is .notdef */
	S_cid *cids;
	size_t ncids, cids_cap;
	uint32_t *text;         /* the characters of CIDs that stand for several */
	size_t ntext, text_cap;
	unsigned *slots;        /* open addressing: index+1 into cids, 0 empty */
	size_t nslots;
	bool is_cff;            /* PostScript outlines: cff, not loca and glyf */
	tb_pdf_cff cff;
	/* the embedded subset, made by tb_pdf_font_prepare */
	tb_buf file;
	unsigned *cid_gid;      /* each CID's glyph in the subset (TrueType) or CFF CID */
	size_t nprepared;       /* CIDs the subset covers */
};

static unsigned S_u16(const tb_pdf_font *f, size_t at)
{
	if (at + 2 > f->len)
		return 0;
	return (unsigned)f->data[at] << 8 | f->data[at + 1];
}

static int S_i16(const tb_pdf_font *f, size_t at)
{
	unsigned v = S_u16(f, at);
	return v >= 0x8000 ? (int)v - 0x10000 : (int)v;
}

static uint32_t S_u32(const tb_pdf_font *f, size_t at)
{
	if (at + 4 > f->len)
		return 0;
	return (uint32_t)f->data[at] << 24 | (uint32_t)f->data[at + 1] << 16 |
	       (uint32_t)f->data[at + 2] << 8 | f->data[at + 3];
}

static bool S_find_table(tb_pdf_font *f, size_t dir, const char *tag, size_t *off, size_t *len)
{
	unsigned n = S_u16(f, dir + 4);
	for (unsigned i = 0; i < n; i++) {
		size_t rec = dir + 12 + 16 * (size_t)i;
		if (rec + 16 > f->len)
			return false;
		if (memcmp(f->data + rec, tag, 4) == 0) {
			uint32_t o = S_u32(f, rec + 8), l = S_u32(f, rec + 12);
			if (o > f->len || l > f->len - o)
				return false;
			*off = o;
			*len = l;
			return true;
		}
	}
	*off = *len = 0;
	return false;
}

static int S_cmp_range(const void *a, const void *b)
{
	const S_range *x = a, *y = b;
	return (x->start > y->start) - (x->start < y->start);
}

/* The best Unicode cmap: format 12 (all planes) where there is one, else
 * format 4 (the BMP). */
static bool S_parse_cmap(tb_pdf_font *f, size_t cmap)
{
	unsigned n = S_u16(f, cmap + 2);
	size_t best4 = 0, best12 = 0;
	for (unsigned i = 0; i < n; i++) {
		size_t rec = cmap + 4 + 8 * (size_t)i;
		unsigned plat = S_u16(f, rec), enc = S_u16(f, rec + 2);
		size_t sub = cmap + S_u32(f, rec + 4);
		if (sub + 4 > f->len)
			continue;
		unsigned fmt = S_u16(f, sub);
		bool uni = plat == 0 || (plat == 3 && (enc == 1 || enc == 10));
		if (!uni)
			continue;
		if (fmt == 12 && !best12)
			best12 = sub;
		else if (fmt == 4 && !best4)
			best4 = sub;
	}
	if (best12) {
		uint32_t ng = S_u32(f, best12 + 12);
		if (ng > (f->len - best12) / 12)
			return false;
		f->ranges = tb_xcalloc(ng ? ng : 1, sizeof *f->ranges);
		for (uint32_t i = 0; i < ng; i++) {
			size_t g = best12 + 16 + 12 * (size_t)i;
			S_range r = {S_u32(f, g), S_u32(f, g + 4), S_u32(f, g + 8), 0};
			if (r.end >= r.start)
				f->ranges[f->nranges++] = r;
		}
		f->format12 = true;
	} else if (best4) {
		unsigned segs = S_u16(f, best4 + 6) / 2;
		size_t ends = best4 + 14, starts = ends + 2 * (size_t)segs + 2;
		size_t deltas = starts + 2 * (size_t)segs, ros = deltas + 2 * (size_t)segs;
		if (ros + 2 * (size_t)segs > f->len)
			return false;
		f->ranges = tb_xcalloc(segs ? segs : 1, sizeof *f->ranges);
		for (unsigned i = 0; i < segs; i++) {
			S_range r;
			r.end = S_u16(f, ends + 2 * (size_t)i);
			r.start = S_u16(f, starts + 2 * (size_t)i);
			r.delta = S_u16(f, deltas + 2 * (size_t)i);
			unsigned ro = S_u16(f, ros + 2 * (size_t)i);
			r.ro_pos = ro ? (uint32_t)(ros + 2 * (size_t)i + ro) : 0;
			if (r.end >= r.start && r.start != 0xFFFF)
				f->ranges[f->nranges++] = r;
		}
	} else {
		return false;
	}
	qsort(f->ranges, f->nranges, sizeof *f->ranges, S_cmp_range);
	return true;
}

unsigned tb_pdf_font_glyph(const tb_pdf_font *f, uint32_t cp)
{
	size_t lo = 0, hi = f->nranges;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const S_range *r = &f->ranges[mid];
		if (cp < r->start) {
			hi = mid;
		} else if (cp > r->end) {
			lo = mid + 1;
		} else {
			unsigned g;
			if (f->format12) {
				g = r->delta + (cp - r->start);
			} else if (r->ro_pos) {
				g = S_u16(f, r->ro_pos + 2 * (size_t)(cp - r->start));
				if (g)
					g = (g + r->delta) & 0xFFFF;
			} else {
				g = (cp + r->delta) & 0xFFFF;
			}
			return g < f->nglyphs ? g : 0;
		}
	}
	return 0;
}

static bool S_glyph_span(const tb_pdf_font *f, unsigned gid, size_t *off, size_t *len);

bool tb_pdf_font_inked(const tb_pdf_font *f, unsigned gid)
{
	size_t off, len;
	if (f->is_cff)
		return gid < f->nglyphs && tb_pdf_cff_inked(&f->cff, gid);
	return gid < f->nglyphs && S_glyph_span(f, gid, &off, &len) && len > 0;
}

int tb_pdf_font_width(const tb_pdf_font *f, unsigned gid)
{
	if (!f->nhmetrics)
		return 0;
	unsigned i = gid < f->nhmetrics ? gid : f->nhmetrics - 1;
	return (int)(S_u16(f, f->hmtx + 4 * (size_t)i) * 1000u / f->upem);
}

static void S_read_name(tb_pdf_font *f)
{
	size_t name, len;
	snprintf(f->name, sizeof f->name, "Font");
	size_t dir = 0;
	if (memcmp(f->data, "ttcf", 4) == 0)
		dir = S_u32(f, 12);
	if (!S_find_table(f, dir, "name", &name, &len))
		return;
	unsigned n = S_u16(f, name + 2);
	size_t strs = name + S_u16(f, name + 4);
	for (unsigned i = 0; i < n; i++) {
		size_t rec = name + 6 + 12 * (size_t)i;
		unsigned plat = S_u16(f, rec), id = S_u16(f, rec + 6);
		size_t l = S_u16(f, rec + 8), o = strs + S_u16(f, rec + 10);
		if (id != 6 || (plat != 1 && plat != 3) || o + l > f->len)
			continue;
		tb_buf b;
		tb_buf_init(&b);
		size_t step = plat == 3 ? 2 : 1;
		for (size_t k = step - 1; k < l && b.len < sizeof f->name - 1; k += step) {
			char c = (char)f->data[o + k];
			if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')
				tb_buf_putc(&b, c);
		}
		if (b.len)
			snprintf(f->name, sizeof f->name, "%s", b.ptr);
		tb_buf_release(&b);
		return;
	}
}

/* Every glyph's outline inside glyf, in order, each long enough for its
 * header: a loca that points past glyf once drew every glyph of a face
 * empty, and the PDF lost its text without a word.  One pass over the
 * offsets (glyph g is loca[g] to loca[g+1]): Droid's 34,000 glyphs are
 * checked in 0.4M instructions, where a span looked up per glyph took
 * 3.8M. */
static bool S_loca_ok(const tb_pdf_font *f, char *why, size_t why_len)
{
	const unsigned char *p = f->data + f->loca;
	size_t prev = 0;
	for (unsigned g = 0; g <= f->nglyphs; g++) {
		size_t at = f->long_loca ? (size_t)p[4 * (size_t)g] << 24 | (size_t)p[4 * (size_t)g + 1] << 16 |
		                           (size_t)p[4 * (size_t)g + 2] << 8 | p[4 * (size_t)g + 3]
		            : 2 * ((size_t)p[2 * (size_t)g] << 8 | p[2 * (size_t)g + 1]);
		if (at > f->glyf_len || (g > 0 && (at < prev || (at > prev && at - prev < 10)))) {
			snprintf(why, why_len, "its loca table points outside its glyf table (glyph %u)",
			         g ? g - 1 : 0);
			return false;
		}
		prev = at;
	}
	return true;
}

static bool S_parse(tb_pdf_font *f, char *why, size_t why_len)
{
	size_t dir = 0;
	if (f->len >= 16 && memcmp(f->data, "ttcf", 4) == 0)
		dir = S_u32(f, 12);
	uint32_t ver = S_u32(f, dir);
	f->is_cff = ver == 0x4F54544F; /* 'OTTO' */
	if (!f->is_cff && ver != 0x00010000 && ver != 0x74727565) {
		snprintf(why, why_len, "it is not a TrueType or OpenType font file");
		return false;
	}
	size_t cmap, dummy, cff = 0, cff_len = 0;
	if (f->is_cff && !S_find_table(f, dir, "CFF ", &cff, &cff_len)) {
		snprintf(why, why_len, S_find_table(f, dir, "CFF2", &cff, &cff_len)
		         ? "it has variable PostScript outlines (CFF2); expected TrueType or CFF outlines"
		         : "it has no CFF table, which its header promises");
		return false;
	}
	if (!S_find_table(f, dir, "head", &f->head, &f->head_len) || f->head_len < 54 ||
	    !S_find_table(f, dir, "hhea", &f->hhea, &f->hhea_len) || f->hhea_len < 36 ||
	    !S_find_table(f, dir, "maxp", &f->maxp, &f->maxp_len) || f->maxp_len < 6 ||
	    !S_find_table(f, dir, "hmtx", &f->hmtx, &f->hmtx_len) ||
	    (!f->is_cff && !S_find_table(f, dir, "loca", &f->loca, &f->loca_len)) ||
	    (!f->is_cff && !S_find_table(f, dir, "glyf", &f->glyf, &f->glyf_len)) ||
	    !S_find_table(f, dir, "cmap", &cmap, &dummy)) {
		snprintf(why, why_len, f->is_cff ? "a table OpenType needs (head, hhea, maxp, hmtx, "
		         "cmap) is missing or cut short" : "a table TrueType needs (head, hhea, maxp, "
		         "hmtx, loca, glyf, cmap) is missing or cut short");
		return false;
	}
	if (f->is_cff && !tb_pdf_cff_parse(f->data + cff, cff_len, &f->cff, why, why_len))
		return false;
	S_find_table(f, dir, "OS/2", &f->os2, &f->os2_len);
	S_find_table(f, dir, "cvt ", &f->cvt, &f->cvt_len);
	S_find_table(f, dir, "fpgm", &f->fpgm, &f->fpgm_len);
	S_find_table(f, dir, "prep", &f->prep, &f->prep_len);
	f->upem = S_u16(f, f->head + 18);
	f->long_loca = S_i16(f, f->head + 50) == 1;
	f->nglyphs = S_u16(f, f->maxp + 4);
	f->nhmetrics = S_u16(f, f->hhea + 34);
	if (f->upem < 16 || f->nglyphs == 0 || f->nhmetrics == 0 || f->nhmetrics > f->nglyphs ||
	    4 * (size_t)f->nhmetrics > f->hmtx_len ||
	    (f->is_cff ? f->cff.nglyphs != f->nglyphs
	     : (size_t)(f->nglyphs + 1) * (f->long_loca ? 4 : 2) > f->loca_len)) {
		snprintf(why, why_len, "its glyph tables do not agree with each other");
		return false;
	}
	if (!f->is_cff && !S_loca_ok(f, why, why_len))
		return false;
	if (!S_parse_cmap(f, cmap)) {
		snprintf(why, why_len, "it has no Unicode character map");
		return false;
	}
	for (int i = 0; i < 4; i++)
		f->bbox[i] = S_i16(f, f->head + 36 + 2 * (size_t)i) * 1000 / (int)f->upem;
	f->ascent = S_i16(f, f->hhea + 4) * 1000 / (int)f->upem;
	f->descent = S_i16(f, f->hhea + 6) * 1000 / (int)f->upem;
	f->cap_height = f->ascent;
	if (f->os2 && f->os2_len >= 90 && S_u16(f, f->os2) >= 2)
		f->cap_height = S_i16(f, f->os2 + 88) * 1000 / (int)f->upem;
	S_read_name(f);
	return true;
}

/* A regular font file mapped rather than read: the Chinese fallback is
 * 4.5 MB, of which a page touches the character map and a few glyphs
 * (reading it whole was 3-4 ms of a page with one line of Chinese).
 * NULL for anything else (a FIFO, a device, a directory), which the
 * bounded reader then reads and explains.  A font file cut short while
 * a report is being drawn would fault; fonts are installed files, and
 * that is the price every mapping font engine pays. */
static unsigned char *S_map(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	struct stat st;
	void *p = MAP_FAILED;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= 12 &&
	    (uint64_t)st.st_size <= S_MAX_FILE_BYTES)
		p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return NULL;
	*len = (size_t)st.st_size;
	return p;
}

tb_pdf_font *tb_pdf_font_load(const char *path, char *why, size_t why_len)
{
	if (strcmp(path, "-") == 0)
		path = "./-";
	size_t len = 0;
	unsigned char *mapped = S_map(path, &len);
	/* else the one bounded reader: a FIFO in --font-dir once blocked for
	 * ever */
	char *data = mapped ? (char *)mapped : tb_fileio_slurp(path, S_MAX_FILE_BYTES, &len);
	if (!data || len < 12) {
		snprintf(why, why_len, "%s", !data && errno == EFBIG ? "it is larger than 64 MB"
		         : !data ? tb_fileio_why(errno) : "it is too short to be a font");
		free(data);
		return NULL;
	}
	tb_pdf_font *f = tb_xcalloc(1, sizeof *f);
	f->data = (unsigned char *)data;
	f->len = len;
	f->mapped = mapped != NULL;
	if (!S_parse(f, why, why_len)) {
		tb_pdf_font_free(f);
		return NULL;
	}
	/* CID 0 is .notdef */
	f->cids_cap = 64;
	f->cids = tb_xcalloc(f->cids_cap, sizeof *f->cids);
	f->ncids = 1;
	tb_buf_init(&f->file);
	return f;
}

void tb_pdf_font_free(tb_pdf_font *f)
{
	if (!f)
		return;
	if (f->mapped)
		munmap(f->data, f->len);
	else
		free(f->data);
	free(f->ranges);
	free(f->cids);
	free(f->text);
	free(f->slots);
	free(f->cid_gid);
	tb_buf_release(&f->file);
	free(f);
}

const char *tb_pdf_font_name(const tb_pdf_font *f)
{
	return f->name;
}

bool tb_pdf_font_used(const tb_pdf_font *f)
{
	return f->ncids > 1;
}

const unsigned char *tb_pdf_font_data(const tb_pdf_font *f, size_t *len)
{
	*len = f->len;
	return f->data;
}

static const uint32_t *S_text(const tb_pdf_font *f, const S_cid *c)
{
	return c->nuni > 1 ? f->text + c->uni : &c->uni;
}

static size_t S_hash(unsigned gid, const uint32_t *uni, size_t nuni)
{
	if (nuni == 1) {
		/* the common case, one character a glyph */
		uint64_t h = ((uint64_t)gid << 32 | uni[0]) * 0x9E3779B97F4A7C15u;
		return (size_t)(h ^ (h >> 29));
	}
	uint64_t h = 1469598103934665603u ^ gid;
	h *= 1099511628211u;
	h ^= nuni;
	h *= 1099511628211u;
	for (size_t i = 0; i < nuni; i++) {
		h ^= uni[i];
		h *= 1099511628211u;
	}
	return (size_t)(h ^ (h >> 29));
}

static bool S_same(const tb_pdf_font *f, const S_cid *c, unsigned gid, const uint32_t *uni,
                   size_t nuni)
{
	if (c->gid != gid || c->nuni != nuni)
		return false;
	return nuni == 1 ? c->uni == uni[0]
	       : nuni == 0 || memcmp(f->text + c->uni, uni, nuni * sizeof *uni) == 0;
}

unsigned tb_pdf_font_cid(tb_pdf_font *f, unsigned gid, const uint32_t *uni, size_t nuni)
{
	if (nuni > TB_PDF_CID_TEXT_MAX)
		nuni = TB_PDF_CID_TEXT_MAX;
	if (f->ncids * 2 >= f->nslots) {
		/* grow and rehash: the table stays at most half full */
		free(f->slots);
		f->nslots = f->nslots ? f->nslots * 2 : 256;
		f->slots = tb_xcalloc(f->nslots, sizeof *f->slots);
		for (size_t i = 1; i < f->ncids; i++) {
			const S_cid *c = &f->cids[i];
			size_t h = S_hash(c->gid, S_text(f, c), c->nuni) & (f->nslots - 1);
			while (f->slots[h])
				h = (h + 1) & (f->nslots - 1);
			f->slots[h] = (unsigned)i;
		}
	}
	size_t h = S_hash(gid, uni, nuni) & (f->nslots - 1);
	while (f->slots[h]) {
		if (S_same(f, &f->cids[f->slots[h]], gid, uni, nuni))
			return f->slots[h];
		h = (h + 1) & (f->nslots - 1);
	}
	if (f->ncids >= 0xFFFF)
		return 0; /* 65,535 distinct glyphs in one document: .notdef */
	if (f->ncids == f->cids_cap) {
		f->cids_cap *= 2;
		f->cids = tb_xrealloc(f->cids, f->cids_cap * sizeof *f->cids);
	}
	S_cid *c = &f->cids[f->ncids];
	c->gid = gid;
	c->nuni = (unsigned)nuni;
	c->uni = nuni == 1 ? uni[0] : 0;
	if (nuni > 1) {
		if (f->ntext + nuni > f->text_cap) {
			f->text_cap = (f->ntext + nuni) * 2;
			f->text = tb_xrealloc(f->text, f->text_cap * sizeof *f->text);
		}
		c->uni = (uint32_t)f->ntext;
		memcpy(f->text + f->ntext, uni, nuni * sizeof *uni);
		f->ntext += nuni;
	}
	f->slots[h] = (unsigned)f->ncids;
	return (unsigned)f->ncids++;
}

/* ---- the embedded subset --------------------------------------------- */

typedef struct S_subset {
	unsigned *old_of;       /* new glyph id -> the font's */
	size_t n, cap;
	unsigned *new_of;       /* the font's glyph id -> new + 1, 0 = not kept */
} S_subset;

static unsigned S_keep(S_subset *s, unsigned old)
{
	if (s->new_of[old])
		return s->new_of[old] - 1;
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 64;
		s->old_of = tb_xrealloc(s->old_of, s->cap * sizeof *s->old_of);
	}
	s->old_of[s->n] = old;
	s->new_of[old] = (unsigned)s->n + 1;
	return (unsigned)s->n++;
}

static bool S_glyph_span(const tb_pdf_font *f, unsigned gid, size_t *off, size_t *len)
{
	size_t a, b;
	if (f->long_loca) {
		a = S_u32(f, f->loca + 4 * (size_t)gid);
		b = S_u32(f, f->loca + 4 * (size_t)gid + 4);
	} else {
		a = 2 * (size_t)S_u16(f, f->loca + 2 * (size_t)gid);
		b = 2 * (size_t)S_u16(f, f->loca + 2 * (size_t)gid + 2);
	}
	if (b < a || b > f->glyf_len)
		return false;
	*off = f->glyf + a;
	*len = b - a;
	return true;
}

/* Composite glyph flags (the glyf table's). */
enum {
	S_ARGS_ARE_WORDS = 0x1, S_HAVE_SCALE = 0x8, S_MORE = 0x20,
	S_HAVE_XY_SCALE = 0x40, S_HAVE_2X2 = 0x80
};

/* Walks the components of composite glyph data `g`; with `rewrite`, each
 * component's glyph id is replaced by its new one (kept first). */
static void S_components(const tb_pdf_font *f, unsigned char *g, size_t len, S_subset *s)
{
	size_t p = 10;
	for (;;) {
		if (p + 4 > len)
			return;
		unsigned flags = (unsigned)g[p] << 8 | g[p + 1];
		unsigned old = (unsigned)g[p + 2] << 8 | g[p + 3];
		unsigned nu = old < f->nglyphs ? S_keep(s, old) : 0;
		g[p + 2] = (unsigned char)(nu >> 8);
		g[p + 3] = (unsigned char)nu;
		p += 4 + ((flags & S_ARGS_ARE_WORDS) ? 4 : 2);
		if (flags & S_HAVE_SCALE)
			p += 2;
		else if (flags & S_HAVE_XY_SCALE)
			p += 4;
		else if (flags & S_HAVE_2X2)
			p += 8;
		if (!(flags & S_MORE))
			return;
	}
}

static void S_put16(tb_buf *b, unsigned v)
{
	unsigned char c[2] = {(unsigned char)(v >> 8), (unsigned char)v};
	tb_buf_put(b, c, 2);
}

static void S_put32(tb_buf *b, uint32_t v)
{
	unsigned char c[4] = {(unsigned char)(v >> 24), (unsigned char)(v >> 16),
	                      (unsigned char)(v >> 8), (unsigned char)v};
	tb_buf_put(b, c, 4);
}

static uint32_t S_checksum(const unsigned char *p, size_t len)
{
	uint32_t sum = 0;
	for (size_t i = 0; i < len; i += 4) {
		uint32_t w = 0;
		for (size_t k = 0; k < 4; k++)
			w = w << 8 | (i + k < len ? p[i + k] : 0);
		sum += w;
	}
	return sum;
}

typedef struct S_table {
	char tag[5];
	tb_buf data;
} S_table;

/* The TrueType file of the kept glyphs, renumbered in order of first use:
 * head, hhea, maxp, hmtx, loca, glyf, and the hinting tables as they are. */
static void S_subset_file(const tb_pdf_font *f, S_subset *s, tb_buf *out)
{
	S_table t[9];
	size_t nt = 0;
	memset(t, 0, sizeof t);
	const char *tags[9] = {"cvt ", "fpgm", "glyf", "head", "hhea", "hmtx", "loca", "maxp", "prep"};
	for (size_t i = 0; i < 9; i++) {
		memcpy(t[i].tag, tags[i], 5);
		tb_buf_init(&t[i].data);
	}
	S_table *cvt = &t[0], *fpgm = &t[1], *glyf = &t[2], *head = &t[3], *hhea = &t[4],
	        *hmtx = &t[5], *loca = &t[6], *maxp = &t[7], *prep = &t[8];
	/* glyf grows the subset as composites name their components */
	for (size_t i = 0; i < s->n; i++) {
		S_put32(&loca->data, (uint32_t)glyf->data.len);
		size_t off, len;
		if (!S_glyph_span(f, s->old_of[i], &off, &len) || len < 10)
			continue;
		size_t at = glyf->data.len;
		tb_buf_put(&glyf->data, f->data + off, len);
		if (S_i16(f, off) < 0)
			S_components(f, (unsigned char *)glyf->data.ptr + at, len, s);
		while (glyf->data.len % 4)
			tb_buf_putc(&glyf->data, 0);
	}
	S_put32(&loca->data, (uint32_t)glyf->data.len);
	for (size_t i = 0; i < s->n; i++) {
		unsigned old = s->old_of[i];
		unsigned m = old < f->nhmetrics ? old : f->nhmetrics - 1;
		S_put16(&hmtx->data, S_u16(f, f->hmtx + 4 * (size_t)m));
		size_t lsb = old < f->nhmetrics ? f->hmtx + 4 * (size_t)old + 2
		             : f->hmtx + 4 * (size_t)f->nhmetrics + 2 * (size_t)(old - f->nhmetrics);
		S_put16(&hmtx->data, lsb + 2 <= f->hmtx + f->hmtx_len ? S_u16(f, lsb) : 0);
	}
	tb_buf_put(&head->data, f->data + f->head, 54);
	memset(head->data.ptr + 8, 0, 4);          /* checkSumAdjustment, set below */
	head->data.ptr[50] = 0;
	head->data.ptr[51] = 1;                    /* long loca */
	tb_buf_put(&hhea->data, f->data + f->hhea, 36);
	hhea->data.ptr[34] = (char)(s->n >> 8);
	hhea->data.ptr[35] = (char)s->n;
	tb_buf_put(&maxp->data, f->data + f->maxp, f->maxp_len < 32 ? f->maxp_len : 32);
	maxp->data.ptr[4] = (char)(s->n >> 8);
	maxp->data.ptr[5] = (char)s->n;
	if (f->cvt_len)
		tb_buf_put(&cvt->data, f->data + f->cvt, f->cvt_len);
	if (f->fpgm_len)
		tb_buf_put(&fpgm->data, f->data + f->fpgm, f->fpgm_len);
	if (f->prep_len)
		tb_buf_put(&prep->data, f->data + f->prep, f->prep_len);
	S_table *keep[9];
	for (size_t i = 0; i < 9; i++)
		if (t[i].data.len)
			keep[nt++] = &t[i];
	unsigned sel = 0;
	while ((2u << sel) <= nt)
		sel++;
	S_put32(out, 0x00010000);
	S_put16(out, (unsigned)nt);
	S_put16(out, 16u << sel);
	S_put16(out, sel);
	S_put16(out, (unsigned)nt * 16 - (16u << sel));
	size_t off = 12 + 16 * nt;
	for (size_t i = 0; i < nt; i++) {
		tb_buf_put(out, keep[i]->tag, 4);
		S_put32(out, S_checksum((unsigned char *)keep[i]->data.ptr, keep[i]->data.len));
		S_put32(out, (uint32_t)off);
		S_put32(out, (uint32_t)keep[i]->data.len);
		off += (keep[i]->data.len + 3) & ~(size_t)3;
	}
	size_t head_at = 0;
	for (size_t i = 0; i < nt; i++) {
		if (keep[i] == head)
			head_at = out->len;
		tb_buf_put(out, keep[i]->data.ptr, keep[i]->data.len);
		while (out->len % 4)
			tb_buf_putc(out, 0);
	}
	uint32_t adj = 0xB1B0AFBAu - S_checksum((unsigned char *)out->ptr, out->len);
	unsigned char *a = (unsigned char *)out->ptr + head_at + 8;
	a[0] = (unsigned char)(adj >> 24);
	a[1] = (unsigned char)(adj >> 16);
	a[2] = (unsigned char)(adj >> 8);
	a[3] = (unsigned char)adj;
	for (size_t i = 0; i < 9; i++)
		tb_buf_release(&t[i].data);
}

static void S_utf16(tb_buf *b, uint32_t c)
{
	if (c >= 0x10000) {
		c -= 0x10000;
		tb_buf_hex4(b, 0xD800 + (c >> 10));
		tb_buf_hex4(b, 0xDC00 + (c & 0x3FF));
	} else {
		tb_buf_hex4(b, c);
	}
}

/* The ToUnicode CMap: bfrange for runs of CIDs that map to consecutive
 * single characters (within one low byte, as the format asks), bfchar for
 * the rest; at most 100 entries a block. */
static void S_to_unicode(const tb_pdf_font *f, tb_buf *b)
{
	tb_buf_puts(b, "/CIDInit /ProcSet findresource begin\n12 dict begin\nbegincmap\n"
	               "/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def\n"
	               "/CMapName /Adobe-Identity-UCS def\n/CMapType 2 def\n"
	               "1 begincodespacerange\n<0000> <FFFF>\nendcodespacerange\n");
	tb_buf ranges, chars;
	tb_buf_init(&ranges);
	tb_buf_init(&chars);
	size_t nr = 0, nc = 0;
	size_t i = 1;
	while (i < f->ncids) {
		size_t j = i + 1;
		const S_cid *c = &f->cids[i];
		if (c->nuni == 0) {
			/* a glyph whose cluster's text another carries: no entry */
			i = j;
			continue;
		}
		if (c->nuni == 1 && c->uni < 0x10000) {
			while (j < f->ncids && f->cids[j].nuni == 1 &&
			       f->cids[j].uni == c->uni + (j - i) && f->cids[j].uni < 0x10000 &&
			       (j & 0xFF) != 0 && ((c->uni + (j - i)) & 0xFF) != 0)
				j++;
		}
		if (j - i >= 2) {
			if (nr % 100 == 0) {
				if (nr)
					tb_buf_puts(&ranges, "endbfrange\n");
				tb_buf_puts(&ranges, "\x01"); /* count patched below */
			}
			tb_buf_printf(&ranges, "<%04zX> <%04zX> <", i, j - 1);
			S_utf16(&ranges, c->uni);
			tb_buf_puts(&ranges, ">\n");
			nr++;
		} else {
			if (nc % 100 == 0) {
				if (nc)
					tb_buf_puts(&chars, "endbfchar\n");
				tb_buf_puts(&chars, "\x02");
			}
			tb_buf_printf(&chars, "<%04zX> <", i);
			for (unsigned k = 0; k < c->nuni; k++)
				S_utf16(&chars, S_text(f, c)[k]);
			tb_buf_puts(&chars, ">\n");
			nc++;
			j = i + 1;
		}
		i = j;
	}
	if (nr)
		tb_buf_puts(&ranges, "endbfrange\n");
	if (nc)
		tb_buf_puts(&chars, "endbfchar\n");
	/* the markers stand where each block's count goes */
	size_t left = nr;
	for (size_t k = 0; k < ranges.len; k++) {
		if (ranges.ptr[k] == '\x01') {
			tb_buf_printf(b, "%zu beginbfrange\n", left < 100 ? left : 100);
			left -= left < 100 ? left : 100;
		} else {
			tb_buf_putc(b, ranges.ptr[k]);
		}
	}
	left = nc;
	for (size_t k = 0; k < chars.len; k++) {
		if (chars.ptr[k] == '\x02') {
			tb_buf_printf(b, "%zu beginbfchar\n", left < 100 ? left : 100);
			left -= left < 100 ? left : 100;
		} else {
			tb_buf_putc(b, chars.ptr[k]);
		}
	}
	tb_buf_release(&ranges);
	tb_buf_release(&chars);
	tb_buf_puts(b, "endcmap\nCMapName currentdict /CMap defineresource pop\nend\nend\n");
}

bool tb_pdf_font_prepare(tb_pdf_font *f, char *why, size_t why_len)
{
	tb_buf_truncate(&f->file, 0);
	free(f->cid_gid);
	f->cid_gid = tb_xcalloc(f->ncids, sizeof *f->cid_gid);
	f->nprepared = f->ncids;
	if (f->is_cff) {
		/* hb-subset renumbers the glyphs; each CID's glyph is then named
		 * by the CID the subset's charset gives it */
		unsigned *gids = tb_xcalloc(f->ncids, sizeof *gids);
		for (size_t i = 0; i < f->ncids; i++)
			gids[i] = f->cids[i].gid;
		const char *err = NULL;
		bool ok = tb_pdf_cff_subset(f->data, f->len, gids, f->ncids, &f->file, f->cid_gid, &err);
		free(gids);
		if (!ok)
			snprintf(why, why_len, "%s", err);
		return ok;
	}
	S_subset s;
	memset(&s, 0, sizeof s);
	s.new_of = tb_xcalloc(f->nglyphs, sizeof *s.new_of);
	S_keep(&s, 0);
	for (size_t i = 1; i < f->ncids; i++)
		f->cid_gid[i] = S_keep(&s, f->cids[i].gid);
	S_subset_file(f, &s, &f->file);
	free(s.old_of);
	free(s.new_of);
	return true;
}

/* The widths by CID, for /W: runs of consecutive CIDs, 64 a run.  A
 * TrueType subset's CIDs are the document's codes, in order; a CFF's are
 * its charset's, sorted here, each once. */
typedef struct S_cw {
	unsigned cid;
	int w;
} S_cw;

static int S_cmp_cw(const void *a, const void *b)
{
	const S_cw *x = a, *y = b;
	return (x->cid > y->cid) - (x->cid < y->cid);
}

static void S_widths(const tb_pdf_font *f, tb_buf *b)
{
	S_cw *cw = tb_xcalloc(f->ncids, sizeof *cw);
	size_t n = 0;
	for (size_t i = 1; i < f->ncids; i++)
		cw[n++] = (S_cw){f->is_cff ? f->cid_gid[i] : (unsigned)i, tb_pdf_font_width(f, f->cids[i].gid)};
	if (f->is_cff)
		qsort(cw, n, sizeof *cw, S_cmp_cw);
	tb_buf_puts(b, "/W [");
	for (size_t i = 0; i < n;) {
		if (i)
			tb_buf_putc(b, ' ');
		tb_buf_int(b, cw[i].cid);
		tb_buf_puts(b, " [");
		size_t j = i;
		for (; j < n && j < i + 64 && cw[j].cid == cw[i].cid + (j - i); j++) {
			if (j > i)
				tb_buf_putc(b, ' ');
			tb_buf_int(b, cw[j].w);
		}
		/* a CID several codes share is listed once */
		while (j < n && cw[j].cid == cw[j - 1].cid)
			j++;
		tb_buf_putc(b, ']');
		i = j;
	}
	tb_buf_putc(b, ']');
	free(cw);
}

/* The font's character collection, as its CIDFont and embedded CMap both
 * give it: a CFF's own ROS, Adobe-Identity-0 for TrueType. */
static void S_system(tb_buf *b, const tb_pdf_font *f)
{
	tb_buf_printf(b, "<< /Registry (%s) /Ordering (%s) /Supplement %u >>",
	              f->is_cff ? f->cff.registry : "Adobe", f->is_cff ? f->cff.ordering : "Identity",
	              f->is_cff ? f->cff.supplement : 0);
}

/* The embedded CMap of a CFF font: the document's codes to the CIDs that
 * select their glyphs.  Its system is the font's, as PDF/A asks of a
 * CMap that is not Identity. */
static void S_encoding(const tb_pdf_font *f, const char *name, tb_buf *b)
{
	tb_buf_puts(b, "/CIDInit /ProcSet findresource begin\n12 dict begin\nbegincmap\n"
	               "/CIDSystemInfo ");
	S_system(b, f);
	tb_buf_printf(b, " def\n/CMapName /%s def\n/CMapType 1 def\n"
	              "1 begincodespacerange\n<0000> <FFFF>\nendcodespacerange\n", name);
	for (size_t i = 0; i < f->ncids; i += 100) {
		size_t e = i + 100 < f->ncids ? i + 100 : f->ncids;
		tb_buf_printf(b, "%zu begincidchar\n", e - i);
		for (size_t k = i; k < e; k++) {
			tb_buf_putc(b, '<');
			tb_buf_hex4(b, k);
			tb_buf_puts(b, "> ");
			tb_buf_int(b, f->cid_gid[k]);
			tb_buf_putc(b, '\n');
		}
		tb_buf_puts(b, "endcidchar\n");
	}
	tb_buf_puts(b, "endcmap\nCMapName currentdict /CMap defineresource pop\nend\nend\n");
}

void tb_pdf_font_write(tb_pdf_font *f, tb_pdfw *w, unsigned type0)
{
	tb_buf b, tag, cmap_name;
	tb_buf_init(&b);
	tb_buf_init(&tag);
	tb_buf_init(&cmap_name);
	/* the subset's tag: six capitals from a hash of what it holds */
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < f->file.len; i++)
		h = (h ^ (unsigned char)f->file.ptr[i]) * 16777619u;
	for (int i = 0; i < 6; i++, h /= 26)
		tb_buf_putc(&tag, (char)('A' + h % 26));
	tb_buf_printf(&cmap_name, "TB-%s", tag.ptr);
	tb_buf_putc(&tag, '+');
	tb_buf_puts(&tag, f->name);

	unsigned cidfont = tb_pdfw_alloc(w), desc = tb_pdfw_alloc(w), file_obj = tb_pdfw_alloc(w),
	         map = tb_pdfw_alloc(w), tounicode = tb_pdfw_alloc(w);
	if (f->is_cff)
		tb_buf_printf(&b, "<< /Type /Font /Subtype /Type0 /BaseFont /%s-%s /Encoding %u 0 R "
		              "/DescendantFonts [%u 0 R] /ToUnicode %u 0 R >>", tag.ptr, cmap_name.ptr,
		              map, cidfont, tounicode);
	else
		tb_buf_printf(&b, "<< /Type /Font /Subtype /Type0 /BaseFont /%s /Encoding /Identity-H "
		              "/DescendantFonts [%u 0 R] /ToUnicode %u 0 R >>", tag.ptr, cidfont,
		              tounicode);
	tb_pdfw_obj(w, type0, b.ptr, b.len);

	tb_buf_truncate(&b, 0);
	tb_buf_printf(&b, "<< /Type /Font /Subtype /CIDFontType%d /BaseFont /%s /CIDSystemInfo ",
	              f->is_cff ? 0 : 2, tag.ptr);
	S_system(&b, f);
	tb_buf_printf(&b, " /FontDescriptor %u 0 R ", desc);
	if (!f->is_cff)
		tb_buf_printf(&b, "/CIDToGIDMap %u 0 R ", map);
	tb_buf_printf(&b, "/DW %d ", tb_pdf_font_width(f, 0));
	S_widths(f, &b);
	tb_buf_puts(&b, " >>");
	tb_pdfw_obj(w, cidfont, b.ptr, b.len);

	tb_buf_truncate(&b, 0);
	/* flags 4: symbolic, as every CIDFont is to a viewer */
	tb_buf_printf(&b, "<< /Type /FontDescriptor /FontName /%s /Flags 4 /FontBBox [%d %d %d %d] "
	              "/ItalicAngle 0 /Ascent %d /Descent %d /CapHeight %d /StemV 80 "
	              "/FontFile%d %u 0 R >>", tag.ptr, f->bbox[0], f->bbox[1], f->bbox[2],
	              f->bbox[3], f->ascent, f->descent, f->cap_height, f->is_cff ? 3 : 2, file_obj);
	tb_pdfw_obj(w, desc, b.ptr, b.len);

	tb_buf_truncate(&b, 0);
	if (f->is_cff)
		tb_buf_puts(&b, "/Subtype /CIDFontType0C");
	else
		tb_buf_printf(&b, "/Length1 %zu", f->file.len);
	tb_pdfw_stream_later(w, file_obj, b.ptr, f->file.ptr, f->file.len, w->level);

	tb_buf_truncate(&b, 0);
	if (f->is_cff) {
		S_encoding(f, cmap_name.ptr, &b);
		tb_buf dict;
		tb_buf_init(&dict);
		tb_buf_printf(&dict, "/Type /CMap /CMapName /%s /CIDSystemInfo ", cmap_name.ptr);
		S_system(&dict, f);
		tb_buf_puts(&dict, " /WMode 0");
		tb_pdfw_stream_later(w, map, dict.ptr, b.ptr, b.len, w->level);
		tb_buf_release(&dict);
	} else {
		for (size_t i = 0; i < f->ncids; i++) {
			tb_buf_putc(&b, (char)(f->cid_gid[i] >> 8));
			tb_buf_putc(&b, (char)f->cid_gid[i]);
		}
		tb_pdfw_stream_later(w, map, "", b.ptr, b.len, w->level);
	}

	tb_buf_truncate(&b, 0);
	S_to_unicode(f, &b);
	tb_pdfw_stream_later(w, tounicode, "", b.ptr, b.len, w->level);

	tb_buf_release(&b);
	tb_buf_release(&tag);
	tb_buf_release(&cmap_name);
}
