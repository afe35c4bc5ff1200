/* pdf_deflate.c: page streams deflated by whichever thread is free
 * (pdf_deflate.h). */
#include "pdf_deflate.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include <libdeflate.h>

#include "trainbudget/xalloc.h"

typedef struct {
	unsigned char *z;
	size_t zlen;
	bool done;
} S_page;

struct tb_pdf_helper {
	pthread_mutex_t mu;
	pthread_cond_t cv;      /* a page done, pages offered, or closed */
	const char *const *data;
	const size_t *len;
	S_page *page;
	size_t n, next;         /* pages offered; the first nobody started */
	size_t busy;            /* pages being deflated now */
	int level;
	bool offered, closed;
	struct libdeflate_compressor *own;      /* the back end's */
};

tb_pdf_helper *tb_pdf_helper_new(void)
{
	tb_pdf_helper *h = tb_xcalloc(1, sizeof *h);
	pthread_mutex_init(&h->mu, NULL);
	pthread_cond_init(&h->cv, NULL);
	return h;
}

void tb_pdf_helper_free(tb_pdf_helper *h)
{
	if (!h)
		return;
	for (size_t i = 0; i < h->n; i++)
		free(h->page[i].z);
	free(h->page);
	libdeflate_free_compressor(h->own);
	pthread_cond_destroy(&h->cv);
	pthread_mutex_destroy(&h->mu);
	free(h);
}

void tb_pdf_helper_offer(tb_pdf_helper *h, const char *const *data, const size_t *len, size_t n,
                         int level)
{
	pthread_mutex_lock(&h->mu);
	h->data = data;
	h->len = len;
	h->page = tb_xcalloc(n ? n : 1, sizeof *h->page);
	h->n = n;
	h->next = 0;
	h->level = level;
	h->offered = true;
	pthread_cond_broadcast(&h->cv);
	pthread_mutex_unlock(&h->mu);
}

/* Deflates page i, outside the lock (the page was claimed under it). */
static void S_deflate(tb_pdf_helper *h, struct libdeflate_compressor *c, size_t i)
{
	size_t len = h->len[i];
	unsigned char *z = NULL;
	size_t zlen = 0;
	if (c && len > 0) {
		size_t cap = libdeflate_zlib_compress_bound(c, len);
		z = tb_xmalloc(cap);
		zlen = libdeflate_zlib_compress(c, h->data[i], len, z, cap);
		if (zlen == 0) {
			/* cannot happen at the bound: stored as it is */
			free(z);
			z = NULL;
		}
	}
	pthread_mutex_lock(&h->mu);
	h->page[i].z = z;
	h->page[i].zlen = zlen;
	h->page[i].done = true;
	h->busy--;
	pthread_cond_broadcast(&h->cv);
	pthread_mutex_unlock(&h->mu);
}

void tb_pdf_helper_work(tb_pdf_helper *h)
{
	pthread_mutex_lock(&h->mu);
	while (!h->offered && !h->closed)
		pthread_cond_wait(&h->cv, &h->mu);
	if (h->closed || h->next >= h->n) {
		pthread_mutex_unlock(&h->mu);
		return;
	}
	int level = h->level;
	pthread_mutex_unlock(&h->mu);
	struct libdeflate_compressor *c = libdeflate_alloc_compressor(level);
	for (;;) {
		pthread_mutex_lock(&h->mu);
		if (h->closed || h->next >= h->n) {
			pthread_mutex_unlock(&h->mu);
			break;
		}
		size_t i = h->next++;
		h->busy++;
		pthread_mutex_unlock(&h->mu);
		S_deflate(h, c, i);
	}
	libdeflate_free_compressor(c);
}

const unsigned char *tb_pdf_helper_take(tb_pdf_helper *h, size_t i, size_t *zlen)
{
	pthread_mutex_lock(&h->mu);
	while (!h->page[i].done) {
		if (h->next < h->n) {
			/* the front page nobody started: this thread's */
			size_t j = h->next++;
			h->busy++;
			pthread_mutex_unlock(&h->mu);
			if (!h->own)
				h->own = libdeflate_alloc_compressor(h->level);
			S_deflate(h, h->own, j);
			pthread_mutex_lock(&h->mu);
		} else {
			pthread_cond_wait(&h->cv, &h->mu);
		}
	}
	*zlen = h->page[i].zlen;
	const unsigned char *z = h->page[i].z;
	pthread_mutex_unlock(&h->mu);
	return z;
}

void tb_pdf_helper_close(tb_pdf_helper *h)
{
	pthread_mutex_lock(&h->mu);
	h->closed = true;
	pthread_cond_broadcast(&h->cv);
	/* the pages' bytes are freed after this: no deflate may still read
	 * them */
	while (h->busy > 0)
		pthread_cond_wait(&h->cv, &h->mu);
	pthread_mutex_unlock(&h->mu);
}
