/* pdf_tags.c: the PDF's logical structure (Tagged PDF, ISO 32000-1
 * 14.7-14.8).  While the document is drawn, an element is open for what
 * is being drawn (a heading, a paragraph, a list item, a table cell, a
 * figure); the text drawn for it is wrapped in marked content with the
 * next MCID of its page, and the element keeps a reference to it.  The
 * running headers and footers are artifacts.  At the end the elements are
 * written as the structure tree, in the order they were opened, which is
 * the reading order, with the parent tree a reader maps MCIDs back by. */
#include "pdf_doc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pdf_write.h"
#include "trainbudget/xalloc.h"

static tb_pdf_kid *S_kid(tb_pdf_elem *e)
{
	e->kids = tb_xgrow(e->kids, &e->kcap, e->nkids + 1, sizeof *e->kids, 4);
	tb_pdf_kid *k = &e->kids[e->nkids++];
	memset(k, 0, sizeof *k);
	return k;
}

void tb_pdf_tags_init(tb_pdf_doc *st)
{
	st->nelems = 0;
	tb_pdf_tag_open(st, "Document");
}

void tb_pdf_tags_release(tb_pdf_doc *st)
{
	for (size_t i = 0; i < st->nelems; i++) {
		free(st->elems[i].kids);
		free(st->elems[i].alt);
	}
	free(st->elems);
	st->elems = NULL;
	st->nelems = st->ecap = 0;
}

void tb_pdf_tag_open(tb_pdf_doc *st, const char *type)
{
	st->elems = tb_xgrow(st->elems, &st->ecap, st->nelems + 1, sizeof *st->elems, 64);
	size_t i = st->nelems++;
	tb_pdf_elem *e = &st->elems[i];
	memset(e, 0, sizeof *e);
	e->type = type;
	e->parent = i ? st->cur : 0;
	if (i) {
		tb_pdf_kid *k = S_kid(&st->elems[st->cur]);
		k->elem = (uint32_t)i;
	}
	st->cur = (uint32_t)i;
}

void tb_pdf_tag_alt(tb_pdf_doc *st, const char *alt)
{
	tb_pdf_elem *e = &st->elems[st->cur];
	free(e->alt);
	tb_buf t;
	tb_buf_init(&t);
	tb_pdf_sanitize(&t, alt, strlen(alt));
	e->alt = tb_buf_detach(&t, NULL);
}

void tb_pdf_tag_close(tb_pdf_doc *st)
{
	if (st->cur)
		st->cur = st->elems[st->cur].parent;
}

void tb_pdf_tag_mark(tb_pdf_doc *st)
{
	if (st->marked || !st->page)
		return;
	tb_pdf_page *p = st->page;
	tb_pdf_elem *e = &st->elems[st->cur];
	tb_pdf_kid *k = S_kid(e);
	k->page = (uint32_t)(st->npages - 1);
	k->mcid = p->nmcid;
	/* the page's parent-tree entry: which element each MCID is in */
	p->mcid_elem = tb_xgrow(p->mcid_elem, &p->mcap, (size_t)p->nmcid + 1,
	                        sizeof *p->mcid_elem, 16);
	p->mcid_elem[p->nmcid] = st->cur;
	tb_buf_putc(&p->c, '/');
	tb_buf_puts(&p->c, e->type);
	tb_buf_puts(&p->c, " <</MCID ");
	tb_pdfw_uint(&p->c, p->nmcid++);
	tb_buf_puts(&p->c, ">> BDC\n");
	st->marked = 1;
}

void tb_pdf_tag_unmark(tb_pdf_doc *st)
{
	if (st->marked != 1)
		return;
	tb_pdf_draw_op(st->page, "EMC");
	st->marked = 0;
}

void tb_pdf_tag_artifact(tb_pdf_doc *st, bool on)
{
	if (on && !st->marked) {
		tb_pdf_draw_op(st->page, "/Artifact <</Type /Pagination>> BDC");
		st->marked = 2;
	} else if (!on && st->marked == 2) {
		tb_pdf_draw_op(st->page, "EMC");
		st->marked = 0;
	}
}

int tb_pdf_tag_link_begin(tb_pdf_doc *st)
{
	if (st->marked == 2 || !st->nelems)
		return 0;
	int state = st->marked == 1 ? 2 : 1;
	tb_pdf_tag_unmark(st);
	tb_pdf_tag_open(st, "Link");
	tb_pdf_tag_mark(st);
	return state;
}

void tb_pdf_tag_form(tb_pdf_doc *st, tb_pdf_annot *a)
{
	if (!st->nelems)
		return;
	tb_pdf_tag_open(st, "Form");
	st->elems[st->cur].annot = true;
	a->elem = st->cur;
	tb_pdf_tag_close(st);
}

void tb_pdf_tag_link_end(tb_pdf_doc *st, int state)
{
	if (!state)
		return;
	tb_pdf_tag_unmark(st);
	tb_pdf_tag_close(st);
	if (state == 2)
		tb_pdf_tag_mark(st);
}

/* Whether element i, or one below it, holds content: empty ones (a list
 * whose items drew nothing) are left out of the tree. */
static bool S_has_content(const tb_pdf_doc *st, size_t i, unsigned char *memo)
{
	if (memo[i])
		return memo[i] == 2;
	const tb_pdf_elem *e = &st->elems[i];
	bool any = e->annot;
	for (size_t k = 0; k < e->nkids && !any; k++)
		any = !e->kids[k].elem || S_has_content(st, e->kids[k].elem, memo);
	memo[i] = any ? 2 : 1;
	return any;
}

unsigned tb_pdf_tags_alloc(tb_pdf_doc *st, tb_pdfw *w)
{
	if (!st->nelems)
		return 0;
	unsigned char *memo = tb_xcalloc(st->nelems, 1);
	for (size_t i = 0; i < st->nelems; i++)
		st->elems[i].obj = S_has_content(st, i, memo) ? tb_pdfw_alloc(w) : 0;
	free(memo);
	if (!st->elems[0].obj)
		st->elems[0].obj = tb_pdfw_alloc(w);
	/* link annotations: keys after the pages' */
	unsigned key = (unsigned)st->npages;
	for (size_t i = 0; i < st->npages; i++) {
		tb_pdf_page *p = st->pages[i];
		for (size_t a = 0; a < p->nannots; a++) {
			tb_pdf_annot *an = &p->annots[a];
			if (an->elem && st->elems[an->elem].obj && !st->elems[an->elem].objr) {
				an->struct_parent = key++;
				st->elems[an->elem].objr = p->annot_obj + (unsigned)a;
			} else {
				an->elem = 0;
			}
		}
	}
	st->next_key = key;
	st->tree_obj = tb_pdfw_alloc(w);
	st->parent_tree_obj = tb_pdfw_alloc(w);
	return st->tree_obj;
}

void tb_pdf_tags_write(tb_pdf_doc *st, tb_pdfw *w)
{
	if (!st->tree_obj)
		return;
	tb_buf b;
	tb_buf_init(&b);
	tb_buf_printf(&b, "<< /Type /StructTreeRoot /K [%u 0 R] /ParentTree %u 0 R"
	              " /ParentTreeNextKey %u >>", st->elems[0].obj, st->parent_tree_obj,
	              st->next_key);
	tb_pdfw_obj(w, st->tree_obj, b.ptr, b.len);
	for (size_t i = 0; i < st->nelems; i++) {
		const tb_pdf_elem *e = &st->elems[i];
		if (!e->obj)
			continue;
		tb_buf_truncate(&b, 0);
		/* /Type is optional; an element's own page (/Pg, that of its
		 * first marked content) lets its MCIDs there be bare numbers */
		tb_buf_puts(&b, "<< /S /");
		tb_buf_puts(&b, e->type);
		tb_buf_puts(&b, " /P ");
		tb_pdfw_ref(&b, i ? st->elems[e->parent].obj : st->tree_obj);
		uint32_t pg = UINT32_MAX;
		for (size_t k = 0; k < e->nkids && pg == UINT32_MAX; k++)
			if (!e->kids[k].elem)
				pg = e->kids[k].page;
		if (pg != UINT32_MAX) {
			tb_buf_puts(&b, " /Pg ");
			tb_pdfw_ref(&b, st->pages[pg]->obj);
		}
		if (e->alt) {
			tb_buf_puts(&b, " /Alt ");
			tb_pdfw_text(&b, e->alt, strlen(e->alt));
		}
		tb_buf_puts(&b, " /K [");
		const char *sep = "";
		for (size_t k = 0; k < e->nkids; k++) {
			const tb_pdf_kid *kid = &e->kids[k];
			if (kid->elem) {
				if (!st->elems[kid->elem].obj)
					continue;
				tb_buf_puts(&b, sep);
				tb_pdfw_ref(&b, st->elems[kid->elem].obj);
			} else if (kid->page == pg) {
				tb_buf_puts(&b, sep);
				tb_pdfw_uint(&b, kid->mcid);
			} else {
				tb_buf_printf(&b, "%s<< /Type /MCR /Pg %u 0 R /MCID %u >>", sep,
				              st->pages[kid->page]->obj, kid->mcid);
			}
			sep = " ";
		}
		if (e->objr) {
			tb_buf_puts(&b, sep);
			tb_buf_puts(&b, "<< /Type /OBJR /Obj ");
			tb_pdfw_ref(&b, e->objr);
			tb_buf_puts(&b, " >>");
		}
		tb_buf_puts(&b, "] >>");
		tb_pdfw_obj(w, e->obj, b.ptr, b.len);
	}
	/* the parent tree: for page i (its /StructParents), the element of
	 * each of its MCIDs */
	tb_buf_truncate(&b, 0);
	tb_buf_puts(&b, "<< /Nums [");
	for (size_t i = 0; i < st->npages; i++) {
		const tb_pdf_page *p = st->pages[i];
		if (i)
			tb_buf_putc(&b, ' ');
		tb_pdfw_uint(&b, i);
		tb_buf_puts(&b, " [");
		for (unsigned m = 0; m < p->nmcid; m++) {
			if (m)
				tb_buf_putc(&b, ' ');
			tb_pdfw_ref(&b, st->elems[p->mcid_elem[m]].obj);
		}
		tb_buf_putc(&b, ']');
	}
	for (size_t i = 0; i < st->npages; i++) {
		const tb_pdf_page *p = st->pages[i];
		for (size_t a = 0; a < p->nannots; a++) {
			if (!p->annots[a].elem)
				continue;
			tb_buf_putc(&b, ' ');
			tb_pdfw_uint(&b, p->annots[a].struct_parent);
			tb_buf_putc(&b, ' ');
			tb_pdfw_ref(&b, st->elems[p->annots[a].elem].obj);
		}
	}
	tb_buf_puts(&b, "] >>");
	tb_pdfw_obj(w, st->parent_tree_obj, b.ptr, b.len);
	tb_buf_release(&b);
}
