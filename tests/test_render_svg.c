/* Tests for render_svg.c: escaping, well-formedness, determinism, and that
 * the SVG draws exactly the display list it is given. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trainbudget/chart.h"
#include "trainbudget/render.h"

#define HOSTILE "<script>alert(1)</script> & \"x\" 'y' ]]> <!--"

static size_t S_occurs(const char *hay, const char *needle)
{
	size_t n = 0;
	for (const char *p = hay; (p = strstr(p, needle)) != NULL; p++)
		n++;
	return n;
}

/* A small XML structure check: every start tag is closed by the matching
 * end tag or is self-closing, nesting is proper, attribute values are
 * quoted, and no raw '<' or '&' appears in text. */
static bool S_well_formed(const char *s, char *why, size_t whylen)
{
	char stack[64][32];
	size_t depth = 0;
	bool root_seen = false;
	const char *p = s;
	while (*p) {
		if (*p == '&') {
			static const char *const ents[] = { "&amp;", "&lt;", "&gt;", "&quot;", "&apos;" };
			bool ok = false;
			for (size_t i = 0; i < 5; i++)
				ok = ok || strncmp(p, ents[i], strlen(ents[i])) == 0;
			if (!ok) {
				snprintf(why, whylen, "bare & at %zu", (size_t)(p - s));
				return false;
			}
			p++;
			continue;
		}
		if (*p != '<') {
			if (*p == '>' ) {
				snprintf(why, whylen, "bare > at %zu", (size_t)(p - s));
				return false;
			}
			if (depth == 0 && !(*p == '\n' || *p == ' ')) {
				snprintf(why, whylen, "text outside the root at %zu", (size_t)(p - s));
				return false;
			}
			p++;
			continue;
		}
		bool closing = p[1] == '/';
		const char *name = p + 1 + closing;
		size_t nl = strcspn(name, " />\n");
		if (nl == 0 || nl >= 32) {
			snprintf(why, whylen, "bad tag name at %zu", (size_t)(p - s));
			return false;
		}
		/* Scan to the end of the tag, skipping quoted values. */
		const char *q = name + nl;
		while (*q && *q != '>') {
			if (*q == '"') {
				const char *e = strchr(q + 1, '"');
				if (!e || memchr(q + 1, '<', (size_t)(e - q - 1))) {
					snprintf(why, whylen, "bad attribute at %zu", (size_t)(q - s));
					return false;
				}
				q = e;
			} else if (*q == '<' || *q == '\'') {
				snprintf(why, whylen, "stray %c in tag at %zu", *q, (size_t)(q - s));
				return false;
			}
			q++;
		}
		if (!*q) {
			snprintf(why, whylen, "unterminated tag");
			return false;
		}
		bool self = q[-1] == '/';
		if (closing) {
			if (depth == 0 || strlen(stack[depth - 1]) != nl ||
			    strncmp(stack[depth - 1], name, nl) != 0) {
				snprintf(why, whylen, "mismatched </%.*s>", (int)nl, name);
				return false;
			}
			depth--;
		} else if (!self) {
			if (depth == 0 && root_seen) {
				snprintf(why, whylen, "second root element");
				return false;
			}
			root_seen = true;
			if (depth == 64)
				return false;
			memcpy(stack[depth], name, nl);
			stack[depth++][nl] = '\0';
		}
		p = q + 1;
	}
	if (depth != 0 || !root_seen) {
		snprintf(why, whylen, "%zu elements left open", depth);
		return false;
	}
	return true;
}

static void S_sample(tb_chart_spec *s)
{
	memset(s, 0, sizeof *s);
	s->kind = TB_CHART_STACKED_BARS;
	strcpy(s->id, "zero");
	strcpy(s->title, "Per-GPU memory by ZeRO stage");
	strcpy(s->x_label, "ZeRO stage");
	strcpy(s->y_label, "Memory per GPU");
	strcpy(s->y_unit, "GB");
	s->y_scale = 1e9;
	s->ncats = 2;
	strcpy(s->cats[0], "ZeRO-0");
	strcpy(s->cats[1], "ZeRO-3");
	s->nseries = 2;
	strcpy(s->series[0].name, "Weights");
	strcpy(s->series[1].name, "Optimizer state");
	s->series[0].values[0] = 13.5e9;
	s->series[0].values[1] = 1.7e9;
	s->series[1].values[0] = 80.9e9;
	s->series[1].values[1] = 10.1e9;
	s->nrefs = 1;
	s->refs[0].value = 80e9;
	strcpy(s->refs[0].label, "H100 80 GB");
}

Test(render_svg, document_shape)
{
	tb_chart_spec s;
	S_sample(&s);
	tb_chart c;
	tb_chart_layout(&s, 480, 300, &c);
	char *svg = tb_render_svg(&c);
	cr_expect(strncmp(svg, "<svg xmlns=\"http://www.w3.org/2000/svg\"", 39) == 0);
	cr_expect_not_null(strstr(svg, " width=\"480.00pt\" height=\"300.00pt\" viewBox=\"0 0 480.00 300.00\""));
	cr_expect_not_null(strstr(svg, "font-family=\"DejaVu Sans, Verdana, sans-serif\""));
	cr_expect_not_null(strstr(svg, "<title>Per-GPU memory by ZeRO stage</title>"));
	cr_expect_not_null(strstr(svg, "aria-label=\"Stacked bar chart of Memory per GPU by ZeRO stage; series: Weights, Optimizer state; line: H100 80 GB.\""));
	cr_expect_not_null(strstr(svg, "<desc>Stacked bar chart of Memory per GPU"));
	cr_expect_not_null(strstr(svg, "role=\"img\""));
	cr_expect_not_null(strstr(svg, "stroke-dasharray"), "the reference line is dashed");
	cr_expect_not_null(strstr(svg, "transform=\"rotate(-90.00 "), "the y label is rotated");
	cr_expect(strcmp(svg + strlen(svg) - 7, "</svg>\n") == 0);
	char why[128] = "";
	cr_expect(S_well_formed(svg, why, sizeof why), "%s", why);
	free(svg);
	tb_chart_release(&c);
}

Test(render_svg, one_element_per_primitive)
{
	tb_chart_spec s;
	S_sample(&s);
	tb_chart c;
	tb_chart_layout(&s, 480, 300, &c);
	char *svg = tb_render_svg(&c);
	size_t rects = 0, lines = 0, circles = 0, texts = 0;
	for (size_t i = 0; i < c.n; i++) {
		switch (c.prims[i].kind) {
		case TB_PRIM_RECT: rects++; break;
		case TB_PRIM_LINE: lines++; break;
		case TB_PRIM_CIRCLE: circles++; break;
		case TB_PRIM_TEXT: texts++; break;
		}
	}
	cr_expect(rects > 0 && lines > 0 && texts > 0);
	cr_expect_eq(S_occurs(svg, "<rect"), rects);
	cr_expect_eq(S_occurs(svg, "<line"), lines);
	cr_expect_eq(S_occurs(svg, "<circle"), circles);
	cr_expect_eq(S_occurs(svg, "<text"), texts);
	cr_expect_eq(S_occurs(svg, "</text>"), texts);
	/* Four bar segments (two stacks of two). */
	cr_expect_eq(S_occurs(svg, "class=\"bar\""), 4);
	free(svg);
	tb_chart_release(&c);
}

Test(render_svg, hand_made_primitives_print_exactly)
{
	tb_prim prims[3];
	memset(prims, 0, sizeof prims);
	prims[0].kind = TB_PRIM_RECT;
	prims[0].x = 10;
	prims[0].y = 20.126;
	prims[0].w = 30;
	prims[0].h = 40;
	prims[0].fill = (tb_rgb){ 0, 114, 178 };
	prims[1].kind = TB_PRIM_CIRCLE;
	prims[1].x = 1.006;
	prims[1].y = -0.001;
	prims[1].w = 2.5;
	prims[1].fill = (tb_rgb){ 255, 255, 255 };
	prims[2].kind = TB_PRIM_TEXT;
	prims[2].x = 5;
	prims[2].y = 6;
	prims[2].font_size = 9;
	prims[2].anchor = TB_ANCHOR_END;
	strcpy(prims[2].text, "80 GB");
	tb_chart c;
	memset(&c, 0, sizeof c);
	c.width_pt = 100;
	c.height_pt = 50;
	c.n = 3;
	c.prims = prims;
	char *svg = tb_render_svg(&c);
	cr_expect_not_null(strstr(svg, "<rect x=\"10.00\" y=\"20.13\" width=\"30.00\" height=\"40.00\" fill=\"#0072b2\"/>\n"), "%s", svg);
	cr_expect_not_null(strstr(svg, "<circle cx=\"1.01\" cy=\"0.00\" r=\"2.50\" fill=\"#ffffff\"/>\n"), "%s", svg);
	cr_expect_not_null(strstr(svg, "<text x=\"5.00\" y=\"6.00\" font-size=\"9.00\" text-anchor=\"end\" fill=\"#000000\">80 GB</text>\n"), "%s", svg);
	free(svg);
}

Test(render_svg, hostile_text_is_escaped)
{
	tb_chart_spec s;
	S_sample(&s);
	strcpy(s.title, HOSTILE);
	strcpy(s.series[0].name, "a<b>&c");
	strcpy(s.cats[0], "\"q\" 'a'");
	strcpy(s.id, "x\"onload=\"alert(1)");
	s.series[1].name[0] = '\x01'; /* not allowed in XML 1.0 */
	tb_chart c;
	tb_chart_layout(&s, 480, 300, &c);
	char *svg = tb_render_svg(&c);
	cr_expect_null(strstr(svg, "<script"));
	cr_expect_null(strstr(svg, "onload=\""));
	cr_expect_null(strstr(svg, "\x01"));
	cr_expect_not_null(strstr(svg, "<title>&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;x&quot; &apos;y&apos; ]]&gt; &lt;!--</title>"));
	cr_expect_not_null(strstr(svg, ">a&lt;b&gt;&amp;c</text>"));
	cr_expect_not_null(strstr(svg, ">&quot;q&quot; &apos;a&apos;</text>"));
	char why[128] = "";
	cr_expect(S_well_formed(svg, why, sizeof why), "%s", why);
	free(svg);
	tb_chart_release(&c);
}

Test(render_svg, never_nan_or_inf)
{
	tb_prim p;
	memset(&p, 0, sizeof p);
	p.kind = TB_PRIM_LINE;
	p.x = NAN;
	p.y = INFINITY;
	p.x2 = -INFINITY;
	p.y2 = 1;
	tb_chart c;
	memset(&c, 0, sizeof c);
	c.width_pt = NAN;
	c.height_pt = -3;
	c.n = 1;
	c.prims = &p;
	char *svg = tb_render_svg(&c);
	cr_expect_null(strstr(svg, "nan"));
	cr_expect_null(strstr(svg, "inf"));
	cr_expect_null(strstr(svg, "-0.00"));
	cr_expect_not_null(strstr(svg, "viewBox=\"0 0 480.00 300.00\""));
	free(svg);
}

Test(render_svg, null_and_empty_charts)
{
	char *svg = tb_render_svg(NULL);
	char why[128] = "";
	cr_expect(S_well_formed(svg, why, sizeof why), "%s", why);
	free(svg);

	tb_chart c;
	tb_chart_layout(NULL, 480, 300, &c);
	svg = tb_render_svg(&c);
	cr_expect(S_well_formed(svg, why, sizeof why), "%s", why);
	cr_expect_not_null(strstr(svg, ">no data</text>"));
	free(svg);
	tb_chart_release(&c);
}

Test(render_svg, byte_identical_twice)
{
	tb_chart_spec s;
	S_sample(&s);
	tb_chart a, b;
	tb_chart_layout(&s, 480, 300, &a);
	tb_chart_layout(&s, 480, 300, &b);
	char *x = tb_render_svg(&a), *y = tb_render_svg(&b);
	cr_expect_str_eq(x, y);
	free(x);
	free(y);
	tb_chart_release(&a);
	tb_chart_release(&b);
}

/* When xmllint is installed (Debian libxml2-utils), a real XML parser
 * agrees that the hostile chart is well formed. */
Test(render_svg, xmllint_accepts_it)
{
	if (system("command -v xmllint >/dev/null 2>&1") != 0)
		cr_skip_test("xmllint not installed");
	tb_chart_spec s;
	S_sample(&s);
	strcpy(s.title, HOSTILE);
	tb_chart c;
	tb_chart_layout(&s, 480, 300, &c);
	char *svg = tb_render_svg(&c);
	char path[] = "/tmp/tb-svg-XXXXXX";
	int fd = mkstemp(path);
	cr_assert(fd >= 0);
	FILE *f = fdopen(fd, "w");
	fputs(svg, f);
	fclose(f);
	char cmd[128];
	snprintf(cmd, sizeof cmd, "xmllint --noout %s 2>/dev/null", path);
	int rc = system(cmd);
	unlink(path);
	cr_expect_eq(rc, 0, "xmllint rejected the SVG");
	free(svg);
	tb_chart_release(&c);
}
