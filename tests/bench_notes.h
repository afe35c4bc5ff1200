/* bench_notes.h: prose make bench writes beside its measurements. */
#ifndef TB_BENCH_NOTES_H
#define TB_BENCH_NOTES_H

/* Paragraphs of docs/performance.md's profile, NULL-terminated. */
extern const char *const tb_bench_where_time_goes[];

#endif
