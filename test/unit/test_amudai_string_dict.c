/*-------------------------------------------------------------------------
 *
 * test_amudai_string_dict.c
 *	  The contract of string_dict.h: codes in order of first appearance, 0
 *	  for nulls, the empty string an ordinary entry, values equal only when
 *	  their bytes are, no dictionary past max_entries or without values.
 *
 * IDENTIFICATION
 *	  test/unit/test_amudai_string_dict.c
 *
 *-------------------------------------------------------------------------
 */
#include "unit.h"

#include <stdio.h>
#include <stdlib.h>

#include "amudai/string_dict.h"

/* Values "b", "", "a", "b", NULL, "ab", "", "a\0" (with the NUL), "a". */
static void
test_small(void)
{
	static const uint8_t bytes[] = "ba" "b" "ab" "a\0" "a";
	static const uint64_t off[] = {0, 1, 1, 2, 3, 3, 5, 5, 7, 8};
	static const uint8_t nulls[] = {0, 0, 0, 0, 1, 0, 0, 0, 0};
	static const uint32_t want[] = {1, 2, 3, 1, 0, 4, 2, 5, 3};
	AmStringDict d;
	AmError		err;

	UNIT_CHECK(am_string_dict_build(&pfc_malloc_allocator, bytes, off, nulls, 9, 9,
									&d, &err) == AM_OK);
	UNIT_CHECKF(d.count == 5, "%u entries", d.count);
	for (int i = 0; i < 9 && d.count == 5; i++)
		UNIT_CHECKF(d.codes[i] == want[i], "value %d: code %u", i, d.codes[i]);
	if (d.count == 5)
	{
		UNIT_CHECK(d.first[0] == 0 && d.first[1] == 1 && d.first[2] == 2 &&
				   d.first[3] == 5 && d.first[4] == 7);
	}
	am_string_dict_free(&pfc_malloc_allocator, &d);
	UNIT_CHECK(d.codes == NULL && d.first == NULL && d.count == 0);

	/* five distinct values with room for four: no dictionary */
	UNIT_CHECK(am_string_dict_build(&pfc_malloc_allocator, bytes, off, nulls, 9, 4,
									&d, &err) == AM_OK);
	UNIT_CHECK(d.count == 0 && d.codes == NULL && d.first == NULL);
	/* exactly enough room */
	UNIT_CHECK(am_string_dict_build(&pfc_malloc_allocator, bytes, off, nulls, 9, 5,
									&d, &err) == AM_OK);
	UNIT_CHECK(d.count == 5);
	am_string_dict_free(&pfc_malloc_allocator, &d);
	/* all null, and no values */
	{
		static const uint8_t all[] = {1, 1, 1, 1, 1, 1, 1, 1, 1};

		UNIT_CHECK(am_string_dict_build(&pfc_malloc_allocator, bytes, off, all, 9, 9,
										&d, &err) == AM_OK);
		UNIT_CHECK(d.count == 0 && d.codes == NULL);
		UNIT_CHECK(am_string_dict_build(&pfc_malloc_allocator, bytes, off, NULL, 0, 9,
										&d, &err) == AM_OK);
		UNIT_CHECK(d.count == 0 && d.codes == NULL);
	}
}

/* Many values: the codes map back to equal bytes and distinct entries differ. */
static void
test_many(void)
{
	enum {N = 50000, DISTINCT = 3001};
	uint8_t    *bytes = malloc(N * 16);
	uint64_t   *off = malloc((N + 1) * sizeof(uint64_t));
	uint64_t	seed = 7,
				at = 0;
	AmStringDict d;
	AmError		err;
	int			bad = 0;

	for (int i = 0; i < N; i++)
	{
		off[i] = at;
		at += (uint64_t) snprintf((char *) bytes + at, 16, "k%u",
								  (unsigned) (unit_rand(&seed) % DISTINCT));
	}
	off[N] = at;
	UNIT_CHECK(am_string_dict_build(&pfc_malloc_allocator, bytes, off, NULL, N, N / 2,
									&d, &err) == AM_OK);
	UNIT_CHECKF(d.count == DISTINCT, "%u entries", d.count);
	for (int i = 0; i < N && d.count > 0; i++)
	{
		uint32_t	e = d.codes[i] - 1;
		uint64_t	len = off[d.first[e] + 1] - off[d.first[e]];

		bad += d.codes[i] == 0 || d.codes[i] > d.count ||
			len != off[i + 1] - off[i] ||
			memcmp(bytes + off[d.first[e]], bytes + off[i], len) != 0 ||
			d.first[e] > (uint32_t) i;
	}
	UNIT_CHECKF(bad == 0, "%d values map to other bytes", bad);
	for (uint32_t e = 1; e < d.count; e++)
		bad += d.first[e] <= d.first[e - 1];
	UNIT_CHECKF(bad == 0, "entries not in order of first appearance");
	am_string_dict_free(&pfc_malloc_allocator, &d);
	UNIT_CHECK(am_string_dict_build(&pfc_malloc_allocator, bytes, off, NULL, N, DISTINCT - 1,
									&d, &err) == AM_OK);
	UNIT_CHECK(d.count == 0);
	free(bytes);
	free(off);
}

int
main(void)
{
	test_small();
	test_many();
	UNIT_MAIN_END("test_amudai_string_dict");
}
