/* test_pdf_deflate.c: the streams deflated by whichever thread is free
 * (src/pdf_deflate.c) are libdeflate's bytes for each stream, whoever
 * compressed it and whenever it was offered, and a helper never outlives
 * or blocks the document. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <libdeflate.h>

#include "pdf_deflate.h"
#include "pdf_write.h"

#define S_PAGES 40

static void *S_work(void *h)
{
	tb_pdf_helper_work(h);
	return NULL;
}

/* Pages of different lengths and contents, one of them empty. */
static void S_pages(char *data[S_PAGES], size_t len[S_PAGES])
{
	unsigned x = 12345;
	for (int i = 0; i < S_PAGES; i++) {
		len[i] = i == 7 ? 0 : (size_t)(1000 + 997 * i);
		data[i] = malloc(len[i] + 1);
		for (size_t k = 0; k < len[i]; k++) {
			x = x * 1103515245u + 12345u;
			data[i][k] = "BT /F1 9.5 Tf <0012> Tj ET\n"[(x >> 16) % 27];
		}
	}
}

/* Streams at different levels, as a PDF's pages, fonts and object
 * streams are: a thread's compressor changes with them. */
static int S_level(int i)
{
	return i % 7 == 3 ? 1 : i % 5 == 0 ? 9 : 5;
}

/* Stream i's bytes as taken (z, zlen) are libdeflate's for its data at
 * its level; an empty one is stored as it is. */
static void S_is_libdeflates(const unsigned char *z, size_t zlen, const char *data, size_t len,
                             int i, int helpers)
{
	if (len == 0) {
		cr_expect_null(z, "an empty page is stored as it is");
		return;
	}
	struct libdeflate_compressor *c = libdeflate_alloc_compressor(S_level(i));
	size_t cap = libdeflate_zlib_compress_bound(c, len);
	unsigned char *want = malloc(cap);
	size_t wlen = libdeflate_zlib_compress(c, data, len, want, cap);
	libdeflate_free_compressor(c);
	cr_assert_eq(zlen, wlen, "page %d with %d helpers", i, helpers);
	cr_assert_eq(memcmp(z, want, wlen), 0, "page %d with %d helpers", i, helpers);
	free(want);
}

/* Pages offered one at a time (more than the helper's first array, so
 * it grows while helpers deflate), each taken at once or all at the end. */
static void S_check(int helpers, bool take_as_added)
{
	char *data[S_PAGES];
	size_t len[S_PAGES];
	S_pages(data, len);
	tb_pdf_helper *h = tb_pdf_helper_new();
	pthread_t th[4];
	for (int t = 0; t < helpers; t++)
		cr_assert_eq(pthread_create(&th[t], NULL, S_work, h), 0);
	int taken = 0;
	for (int i = 0; i <= S_PAGES; i++) {
		if (i < S_PAGES)
			cr_assert_eq(tb_pdf_helper_add(h, data[i], len[i], S_level(i)), (size_t)i);
		else
			tb_pdf_helper_all_added(h);
		int upto = i == S_PAGES ? S_PAGES : take_as_added ? i + 1 : 0;
		for (; taken < upto; taken++) {
			size_t zlen = 0;
			const unsigned char *z = tb_pdf_helper_take(h, (size_t)taken, &zlen);
			S_is_libdeflates(z, zlen, data[taken], len[taken], taken, helpers);
		}
	}
	cr_assert_eq(taken, S_PAGES);
	/* every page offered and started: the helpers return by themselves */
	for (int t = 0; t < helpers; t++)
		pthread_join(th[t], NULL);
	tb_pdf_helper_close(h);
	tb_pdf_helper_free(h);
	for (int i = 0; i < S_PAGES; i++)
		free(data[i]);
}

Test(pdf_deflate, same_bytes_whoever_deflates)
{
	for (int helpers = 0; helpers <= 3; helpers++) {
		S_check(helpers, false);
		S_check(helpers, true);
	}
}

/* A document that fails before its pages are all offered: the helper's
 * thread returns instead of waiting for the rest. */
Test(pdf_deflate, close_without_offer_releases_the_helper)
{
	tb_pdf_helper *h = tb_pdf_helper_new();
	pthread_t th;
	cr_assert_eq(pthread_create(&th, NULL, S_work, h), 0);
	tb_pdf_helper_add(h, "BT ET", 5, 1);
	tb_pdf_helper_close(h);
	pthread_join(th, NULL);
	tb_pdf_helper_free(h);
}

/* A file whose streams are written later (tb_pdfw_stream_later): the same
 * bytes with a helper thread deflating them, with one that never comes
 * (the writer's thread takes them), and with none (deflated at finish). */
static void S_later_file(tb_pdf_helper *h, tb_buf *out)
{
	char *data[S_PAGES];
	size_t len[S_PAGES];
	S_pages(data, len);
	tb_pdfw w;
	tb_pdfw_init(&w, 6);
	w.helper = h;
	unsigned root = tb_pdfw_alloc(&w);
	tb_pdfw_obj(&w, root, "<< /Type /Catalog >>", 20);
	for (int i = 0; i < S_PAGES; i++) {
		unsigned num = tb_pdfw_alloc(&w);
		tb_pdfw_stream_later(&w, num, i % 2 ? "/Length1 7" : "", data[i], len[i], S_level(i));
		free(data[i]);  /* the writer keeps its own copy */
	}
	tb_buf_init(out);
	tb_pdfw_finish(&w, root, 0, out, NULL);
	if (h) {
		tb_pdf_helper_all_added(h);
		tb_pdf_helper_close(h);
	}
	tb_pdfw_release(&w);
}

Test(pdf_deflate, streams_written_later_same_file)
{
	tb_buf none, alone, helped;
	S_later_file(NULL, &none);
	tb_pdf_helper *h = tb_pdf_helper_new();
	S_later_file(h, &alone);
	tb_pdf_helper_free(h);
	h = tb_pdf_helper_new();
	pthread_t th;
	cr_assert_eq(pthread_create(&th, NULL, S_work, h), 0);
	S_later_file(h, &helped);
	pthread_join(th, NULL);
	tb_pdf_helper_free(h);
	cr_assert_gt(none.len, 1000);
	cr_assert_eq(none.len, alone.len);
	cr_assert_eq(none.len, helped.len);
	cr_expect_eq(memcmp(none.ptr, alone.ptr, none.len), 0);
	cr_expect_eq(memcmp(none.ptr, helped.ptr, none.len), 0);
	/* each stream in the file deflated (an empty one stored as it is) */
	size_t flate = 0;
	for (size_t i = 0; i + 12 <= none.len; i++)
		flate += memcmp(none.ptr + i, "/FlateDecode", 12) == 0;
	cr_expect_eq(flate, S_PAGES - 1 + 2, "%zu", flate);   /* and the xref, the object stream */
	tb_buf_release(&none);
	tb_buf_release(&alone);
	tb_buf_release(&helped);
}

/* The helping thread's pieces between work of its own: work_ready deflates
 * what is offered so far and returns without waiting for more; its later
 * work deflates the rest; the bytes are libdeflate's either way. */
Test(pdf_deflate, work_ready_takes_what_is_offered_and_returns, .timeout = 10)
{
	char *data[S_PAGES];
	size_t len[S_PAGES];
	S_pages(data, len);
	tb_pdf_helper *h = tb_pdf_helper_new();
	tb_pdf_helper_work_ready(h);            /* nothing offered: returns */
	for (int i = 0; i < 5; i++)
		tb_pdf_helper_add(h, data[i], len[i], S_level(i));
	tb_pdf_helper_work_ready(h);
	for (int i = 5; i < S_PAGES; i++)
		tb_pdf_helper_add(h, data[i], len[i], S_level(i));
	tb_pdf_helper_all_added(h);
	tb_pdf_helper_work(h);                  /* every one offered: returns once started */
	for (int i = 0; i < S_PAGES; i++) {
		size_t zlen = 0;
		const unsigned char *z = tb_pdf_helper_take(h, (size_t)i, &zlen);
		S_is_libdeflates(z, zlen, data[i], len[i], i, 1);
	}
	tb_pdf_helper_close(h);
	tb_pdf_helper_free(h);
	for (int i = 0; i < S_PAGES; i++)
		free(data[i]);
}
