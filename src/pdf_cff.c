#include "pdf_cff.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "textlib.h"
#include "trainbudget/xalloc.h"

/* An INDEX (CFF spec, Sec. 5): count objects whose offsets, one-based,
 * count from the byte before the first object. */
typedef struct S_index {
	unsigned count, offsize;
	size_t offs, data, end;
} S_index;

static size_t S_off(const tb_pdf_cff *c, const S_index *x, unsigned i)
{
	size_t v = 0;
	const unsigned char *q = c->p + x->offs + (size_t)i * x->offsize;
	for (unsigned k = 0; k < x->offsize; k++)
		v = v << 8 | q[k];
	return v;
}

static bool S_index_at(const tb_pdf_cff *c, size_t at, S_index *x)
{
	memset(x, 0, sizeof *x);
	if (at > c->len || c->len - at < 2)
		return false;
	x->count = (unsigned)c->p[at] << 8 | c->p[at + 1];
	if (x->count == 0) {
		x->end = at + 2;
		return true;
	}
	if (c->len - at < 3)
		return false;
	x->offsize = c->p[at + 2];
	x->offs = at + 3;
	size_t need = ((size_t)x->count + 1) * x->offsize;
	if (x->offsize < 1 || x->offsize > 4 || need > c->len - x->offs)
		return false;
	x->data = x->offs + need - 1;
	size_t last = S_off(c, x, x->count);
	if (last < 1 || last > c->len - x->data)
		return false;
	x->end = x->data + last;
	return true;
}

/* Object i of an INDEX as [*a, *b). */
static bool S_item(const tb_pdf_cff *c, const S_index *x, unsigned i, size_t *a, size_t *b)
{
	if (i >= x->count)
		return false;
	size_t s = S_off(c, x, i), e = S_off(c, x, i + 1);
	if (s < 1 || e < s || x->data + e > x->end)
		return false;
	*a = x->data + s;
	*b = x->data + e;
	return true;
}

/* The Top DICT's operators this back end needs: charset (15),
 * CharStrings (17) and ROS (12 30). */
typedef struct S_top {
	long charset, charstrings, ros[3];
	bool has_ros;
} S_top;

static bool S_top_dict(const tb_pdf_cff *c, size_t a, size_t b, S_top *t)
{
	long ops[48];
	size_t n = 0;
	const unsigned char *p = c->p;
	while (a < b) {
		unsigned v = p[a++];
		if (v <= 21) {
			unsigned op = v;
			if (v == 12) {
				if (a >= b)
					return false;
				op = 1200 + p[a++];
			}
			if (op == 15 && n >= 1)
				t->charset = ops[n - 1];
			else if (op == 17 && n >= 1)
				t->charstrings = ops[n - 1];
			else if (op == 1230 && n >= 3) {
				memcpy(t->ros, ops + n - 3, sizeof t->ros);
				t->has_ros = true;
			}
			n = 0;
			continue;
		}
		long x = 0;
		if (v == 28 && b - a >= 2) {
			x = (int16_t)(p[a] << 8 | p[a + 1]);
			a += 2;
		} else if (v == 29 && b - a >= 4) {
			x = (int32_t)((uint32_t)p[a] << 24 | (uint32_t)p[a + 1] << 16 |
			              (uint32_t)p[a + 2] << 8 | p[a + 3]);
			a += 4;
		} else if (v == 30) {
			/* a real: nibbles up to an 0xf; only integers are read here */
			while (a < b && (p[a] & 0x0F) != 0x0F && (p[a] >> 4) != 0x0F)
				a++;
			if (a++ >= b)
				return false;
		} else if (v >= 32 && v <= 246) {
			x = (long)v - 139;
		} else if (v >= 247 && v <= 254 && a < b) {
			long w = (long)(v >= 251 ? v - 251 : v - 247) * 256 + p[a++] + 108;
			x = v >= 251 ? -w : w;
		} else {
			return false;
		}
		if (n == sizeof ops / sizeof ops[0])
			return false;
		ops[n++] = x;
	}
	return true;
}

/* A string by its SID, kept to the characters a PDF name and literal
 * take as they are.  The 391 standard strings are not carried here: a
 * ROS naming one says Adobe's own registry, and Identity is the safe
 * ordering to say for it. */
static void S_string(const tb_pdf_cff *c, long sid, char *out, size_t cap, const char *dflt)
{
	snprintf(out, cap, "%s", dflt);
	S_index x;
	size_t a, b;
	if (sid < 391 || !S_index_at(c, c->strings, &x) || !S_item(c, &x, (unsigned)(sid - 391), &a, &b))
		return;
	size_t n = 0;
	for (; a < b && n + 1 < cap; a++) {
		char ch = (char)c->p[a];
		if ((ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') ||
		    ch == '-' || ch == '_' || ch == '.')
			out[n++] = ch;
	}
	out[n] = '\0';
	if (!n)
		snprintf(out, cap, "%s", dflt);
}

bool tb_pdf_cff_parse(const unsigned char *p, size_t len, tb_pdf_cff *c, char *why,
                      size_t why_len)
{
	memset(c, 0, sizeof *c);
	c->p = p;
	c->len = len;
	S_index names, top, strings, gsubrs, cs;
	S_top t = {0, 0, {0, 0, 0}, false};
	size_t a, b;
	if (len < 4 || p[0] != 1 || p[2] < 4) {
		snprintf(why, why_len, "its CFF table is not CFF version 1");
		return false;
	}
	if (!S_index_at(c, p[2], &names) || !S_index_at(c, names.end, &top) ||
	    !S_index_at(c, top.end, &strings) || !S_index_at(c, strings.end, &gsubrs) ||
	    !S_item(c, &top, 0, &a, &b) || !S_top_dict(c, a, b, &t)) {
		snprintf(why, why_len, "its CFF table is damaged (header, name, top or string INDEX)");
		return false;
	}
	if (names.count != 1) {
		snprintf(why, why_len, "its CFF table holds %u fonts; expected one", names.count);
		return false;
	}
	c->strings = top.end;
	if (t.charstrings <= 0 || (size_t)t.charstrings >= len ||
	    !S_index_at(c, (size_t)t.charstrings, &cs) || cs.count == 0) {
		snprintf(why, why_len, "its CFF table has no CharStrings");
		return false;
	}
	c->charstrings = (size_t)t.charstrings;
	c->nglyphs = cs.count;
	c->cid_keyed = t.has_ros;
	if (c->cid_keyed) {
		/* a CID-keyed font's charset is its own, never a predefined one */
		if (t.charset <= 2 || (size_t)t.charset >= len) {
			snprintf(why, why_len, "its CFF table is CID-keyed without a charset");
			return false;
		}
		c->charset = (size_t)t.charset;
		S_string(c, t.ros[0], c->registry, sizeof c->registry, "Adobe");
		S_string(c, t.ros[1], c->ordering, sizeof c->ordering, "Identity");
		c->supplement = t.ros[2] >= 0 && t.ros[2] < 1000 ? (unsigned)t.ros[2] : 0;
	} else {
		snprintf(c->registry, sizeof c->registry, "Adobe");
		snprintf(c->ordering, sizeof c->ordering, "Identity");
	}
	return true;
}

bool tb_pdf_cff_inked(const tb_pdf_cff *c, unsigned gid)
{
	S_index x;
	size_t a, b;
	if (!S_index_at(c, c->charstrings, &x) || !S_item(c, &x, gid, &a, &b))
		return false;
	/* Type 2 charstrings (Adobe TN 5177): numbers, then operators; a blank
	 * glyph is a width, stem hints and endchar */
	unsigned nargs = 0;
	while (a < b) {
		unsigned v = c->p[a++];
		if (v == 28) {
			a += 2;
		} else if (v >= 32) {
			a += v <= 246 ? 0 : v <= 254 ? 1 : 4;
		} else if (v == 1 || v == 3 || v == 18 || v == 23) {
			nargs = 0;              /* hstem, vstem, hstemhm, vstemhm */
			continue;
		} else if (v == 14) {
			return nargs >= 4;      /* endchar; with four arguments a seac accent */
		} else {
			return true;            /* a path, a mask over paths, or a subroutine */
		}
		nargs++;
	}
	return false;
}

bool tb_pdf_cff_cids(const tb_pdf_cff *c, unsigned *cid_of)
{
	unsigned n = c->nglyphs;
	cid_of[0] = 0;
	if (!c->cid_keyed) {
		for (unsigned g = 1; g < n; g++)
			cid_of[g] = g;
		return true;
	}
	size_t at = c->charset;
	if (at >= c->len)
		return false;
	unsigned fmt = c->p[at++];
	unsigned g = 1;
	if (fmt == 0) {
		if (c->len - at < 2 * (size_t)(n - 1))
			return false;
		for (; g < n; g++, at += 2)
			cid_of[g] = (unsigned)c->p[at] << 8 | c->p[at + 1];
	} else if (fmt == 1 || fmt == 2) {
		size_t step = fmt == 1 ? 3 : 4;
		while (g < n) {
			if (c->len - at < step)
				return false;
			unsigned first = (unsigned)c->p[at] << 8 | c->p[at + 1];
			unsigned left = fmt == 1 ? c->p[at + 2] : (unsigned)c->p[at + 2] << 8 | c->p[at + 3];
			at += step;
			for (unsigned k = 0; k <= left && g < n; k++)
				cid_of[g++] = first + k;
		}
	} else {
		return false;
	}
	/* a CID given twice would send two glyphs' codes to one outline */
	unsigned char *seen = tb_xcalloc(65536, 1);
	bool ok = true;
	for (g = 0; g < n && ok; g++) {
		ok = cid_of[g] <= 0xFFFF && !seen[cid_of[g]];
		if (ok)
			seen[cid_of[g]] = 1;
	}
	free(seen);
	return ok;
}

bool tb_pdf_cff_subset(const unsigned char *font, size_t len, const unsigned *gids, size_t n,
                       tb_buf *out, unsigned *cids, const char **why)
{
	const tb_textlib *L = tb_textlib_get(why);
	const tb_textlib_subset *S = L ? tb_textlib_subsetter(why) : NULL;
	if (!S)
		return false;
	bool ok = false;
	*why = "hb-subset could not subset it";
	hb_blob_t *blob = L->hb_blob_create((const char *)font, (unsigned)len,
	                                    HB_MEMORY_MODE_READONLY, NULL, NULL);
	hb_face_t *face = L->hb_face_create(blob, 0);
	hb_subset_input_t *in = S->hb_subset_input_create_or_fail();
	hb_subset_plan_t *plan = NULL;
	hb_face_t *sub = NULL;
	hb_blob_t *table = NULL;
	unsigned *cid_of = NULL;
	if (!in)
		goto done;
	hb_set_t *glyphs = S->hb_subset_input_set(in, HB_SUBSET_SETS_GLYPH_INDEX);
	for (size_t i = 0; i < n; i++)
		L->hb_set_add(glyphs, gids[i]);
	/* only the CFF table is embedded: the layout tables would only make
	 * hb-subset follow substitutions to glyphs no text drew */
	hb_set_t *drop = S->hb_subset_input_set(in, HB_SUBSET_SETS_DROP_TABLE_TAG);
	static const char *const drop_tags[] = {"GSUB", "GPOS", "GDEF", "BASE", "JSTF", "MATH",
	                                        "COLR", "CPAL", "SVG ", "vmtx", "vhea", "VORG",
	                                        "cmap", "name", "post", "OS/2", "hmtx", "hhea"};
	for (size_t i = 0; i < sizeof drop_tags / sizeof drop_tags[0]; i++)
		L->hb_set_add(drop, HB_TAG(drop_tags[i][0], drop_tags[i][1], drop_tags[i][2],
		                           drop_tags[i][3]));
	plan = S->hb_subset_plan_create_or_fail(face, in);
	sub = plan ? S->hb_subset_plan_execute_or_fail(plan) : NULL;
	if (!sub)
		goto done;
	table = L->hb_face_reference_table(sub, HB_TAG('C', 'F', 'F', ' '));
	unsigned tlen = 0;
	const char *tdata = L->hb_blob_get_data(table, &tlen);
	char why_cff[160];
	tb_pdf_cff c;
	if (!tdata || !tlen || !tb_pdf_cff_parse((const unsigned char *)tdata, tlen, &c, why_cff,
	                                         sizeof why_cff))
		goto done;
	cid_of = tb_xcalloc(c.nglyphs, sizeof *cid_of);
	if (!tb_pdf_cff_cids(&c, cid_of))
		goto done;
	const hb_map_t *map = S->hb_subset_plan_old_to_new_glyph_mapping(plan);
	for (size_t i = 0; i < n; i++) {
		hb_codepoint_t g = L->hb_map_get(map, gids[i]);
		if (g == HB_MAP_VALUE_INVALID || g >= c.nglyphs)
			goto done;
		cids[i] = cid_of[g];
	}
	tb_buf_put(out, tdata, tlen);
	ok = true;
done:
	free(cid_of);
	L->hb_blob_destroy(table);
	L->hb_face_destroy(sub);
	if (plan)
		S->hb_subset_plan_destroy(plan);
	if (in)
		S->hb_subset_input_destroy(in);
	L->hb_face_destroy(face);
	L->hb_blob_destroy(blob);
	return ok;
}
