/* pdf_deflate.c: a PDF's streams deflated by whichever thread is free
 * (pdf_deflate.h). */
#include "pdf_deflate.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include <libdeflate.h>

#include "trainbudget/xalloc.h"

typedef struct {
	const char *data;       /* the stream's bytes, unchanged once offered */
	size_t len;
	int level;
	unsigned char *z;
	size_t zlen;
	bool done;
} S_stream;

struct tb_pdf_helper {
	pthread_mutex_t mu;
	pthread_cond_t cv;      /* a stream done or offered, the last offered, or closed */
	S_stream *stream;
	size_t n, cap, next;    /* streams offered; the first nobody started */
	size_t busy;            /* streams being deflated now */
	bool all, closed;       /* every stream offered; no more taken */
	struct libdeflate_compressor *own;      /* the back end's, at own_level */
	int own_level;
	/* the compressor of the thread that called tb_pdf_helper_work_ready,
	 * kept for its later calls (other helping threads make their own) */
	struct libdeflate_compressor *help;
	int help_level;
	pthread_t help_thread;
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
		free(h->stream[i].z);
	free(h->stream);
	libdeflate_free_compressor(h->own);
	libdeflate_free_compressor(h->help);
	pthread_cond_destroy(&h->cv);
	pthread_mutex_destroy(&h->mu);
	free(h);
}

size_t tb_pdf_helper_add(tb_pdf_helper *h, const char *data, size_t len, int level)
{
	pthread_mutex_lock(&h->mu);
	/* the array moves as it grows: a deflate in progress holds its
	 * stream's bytes, not a pointer into it */
	h->stream = tb_xgrow(h->stream, &h->cap, h->n + 1, sizeof *h->stream, 16);
	h->stream[h->n] = (S_stream){ .data = data, .len = len, .level = level };
	size_t i = h->n++;
	pthread_cond_broadcast(&h->cv);
	pthread_mutex_unlock(&h->mu);
	return i;
}

void tb_pdf_helper_all_added(tb_pdf_helper *h)
{
	pthread_mutex_lock(&h->mu);
	h->all = true;
	pthread_cond_broadcast(&h->cv);
	pthread_mutex_unlock(&h->mu);
}

/* Deflates stream i, claimed under the lock, outside it. */
static void S_deflate(tb_pdf_helper *h, struct libdeflate_compressor *c, const char *data,
                      size_t len, size_t i)
{
	unsigned char *z = NULL;
	size_t zlen = 0;
	if (c && len > 0) {
		size_t cap = libdeflate_zlib_compress_bound(c, len);
		z = tb_xmalloc(cap);
		zlen = libdeflate_zlib_compress(c, data, len, z, cap);
		if (zlen == 0) {
			/* cannot happen at the bound: stored as it is */
			free(z);
			z = NULL;
		}
	}
	pthread_mutex_lock(&h->mu);
	h->stream[i].z = z;
	h->stream[i].zlen = zlen;
	h->stream[i].done = true;
	h->busy--;
	pthread_cond_broadcast(&h->cv);
	pthread_mutex_unlock(&h->mu);
}

/* Claims the front stream nobody started (the lock held, one left). */
static size_t S_claim(tb_pdf_helper *h, const char **data, size_t *len, int *level)
{
	size_t i = h->next++;
	h->busy++;
	*data = h->stream[i].data;
	*len = h->stream[i].len;
	*level = h->stream[i].level;
	return i;
}

/* A thread's compressor at `level`, made anew when the level changes
 * (pages, fonts and object streams may each have their own). */
static struct libdeflate_compressor *S_at(struct libdeflate_compressor **c, int *at, int level)
{
	if (!*c || *at != level) {
		libdeflate_free_compressor(*c);
		*c = libdeflate_alloc_compressor(level);
		*at = level;
	}
	return *c;
}

/* A helping thread's loop, with compressor *c at *clevel: until every
 * stream is offered (wait) or, else, until none is left to start. */
static void S_help(tb_pdf_helper *h, bool wait, struct libdeflate_compressor **c, int *clevel)
{
	pthread_mutex_lock(&h->mu);
	for (;;) {
		if (h->closed || (h->all && h->next >= h->n))
			break;
		if (h->next >= h->n) {
			if (!wait)
				break;
			pthread_cond_wait(&h->cv, &h->mu);
			continue;
		}
		const char *data;
		size_t len;
		int level;
		size_t i = S_claim(h, &data, &len, &level);
		pthread_mutex_unlock(&h->mu);
		S_deflate(h, S_at(c, clevel, level), data, len, i);
		pthread_mutex_lock(&h->mu);
	}
	pthread_mutex_unlock(&h->mu);
}

void tb_pdf_helper_work(tb_pdf_helper *h)
{
	if (h->help && pthread_equal(h->help_thread, pthread_self())) {
		S_help(h, true, &h->help, &h->help_level);
		return;
	}
	struct libdeflate_compressor *c = NULL;
	int clevel = 0;
	S_help(h, true, &c, &clevel);
	libdeflate_free_compressor(c);
}

void tb_pdf_helper_work_ready(tb_pdf_helper *h)
{
	if (!h->help)
		h->help_thread = pthread_self();
	S_help(h, false, &h->help, &h->help_level);
}

const unsigned char *tb_pdf_helper_take(tb_pdf_helper *h, size_t i, size_t *zlen)
{
	pthread_mutex_lock(&h->mu);
	while (!h->stream[i].done) {
		if (h->next < h->n) {
			/* the front stream nobody started: this thread's */
			const char *data;
			size_t len;
			int level;
			size_t j = S_claim(h, &data, &len, &level);
			pthread_mutex_unlock(&h->mu);
			S_deflate(h, S_at(&h->own, &h->own_level, level), data, len, j);
			pthread_mutex_lock(&h->mu);
		} else {
			pthread_cond_wait(&h->cv, &h->mu);
		}
	}
	*zlen = h->stream[i].zlen;
	const unsigned char *z = h->stream[i].z;
	pthread_mutex_unlock(&h->mu);
	return z;
}

void tb_pdf_helper_close(tb_pdf_helper *h)
{
	pthread_mutex_lock(&h->mu);
	h->closed = true;
	pthread_cond_broadcast(&h->cv);
	/* the streams' bytes are freed after this: no deflate may still read
	 * them */
	while (h->busy > 0)
		pthread_cond_wait(&h->cv, &h->mu);
	pthread_mutex_unlock(&h->mu);
}
