/* outputs.c: the files a command writes, in memory (outputs.h). */
#include "outputs.h"

#include <stdlib.h>
#include <string.h>

#include "trainbudget/buf.h"
#include "trainbudget/sha256.h"
#include "trainbudget/xalloc.h"

bool tb_outputs_safe_id(const char *id)
{
	if (!*id)
		return false;
	for (const char *p = id; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '_' || *p == '-'))
			return false;
	return true;
}


static char *S_own(tb_outputs *o, char *p)
{
	if (o->nowned == o->owned_cap) {
		o->owned_cap = o->owned_cap ? o->owned_cap * 2 : 16;
		o->owned = tb_xrealloc(o->owned, o->owned_cap * sizeof *o->owned);
	}
	o->owned[o->nowned++] = p;
	return p;
}

void tb_outputs_add(tb_outputs *o, const char *name, const char *suffix,
                         char *data, size_t len)
{
	tb_outputs_add_hashed(o, name, suffix, data, len, NULL);
}

void tb_outputs_add_hashed(tb_outputs *o, const char *name, const char *suffix, char *data,
                           size_t len, const char sha256_hex[65])
{
	tb_buf p;
	tb_buf_init(&p);
	tb_buf_printf(&p, "%s%s", name, suffix);
	for (size_t i = 0; i < o->n; i++)
		if (strcmp(o->files[i].name, p.ptr) == 0) {
			/* The same chart twice in one template: one file. */
			tb_buf_release(&p);
			free(data);
			return;
		}
	if (o->n == o->cap) {
		o->cap = o->cap ? o->cap * 2 : 8;
		o->files = tb_xrealloc(o->files, o->cap * sizeof *o->files);
	}
	tb_outfile *f = &o->files[o->n++];
	f->name = S_own(o, tb_buf_detach(&p, NULL));
	f->data = S_own(o, data);
	f->len = len;
	/* hashed here, by the thread that made it: the manifest need not
	 * wait for it after the last document */
	char *hex = tb_xmalloc(65);
	if (sha256_hex)
		memcpy(hex, sha256_hex, 65);
	else
		tb_sha256_hex(data, len, hex);
	f->sha256_hex = S_own(o, hex);
}

void tb_outputs_release(tb_outputs *o)
{
	for (size_t i = 0; i < o->nowned; i++)
		free(o->owned[i]);
	free(o->owned);
	free(o->files);
	memset(o, 0, sizeof *o);
}
