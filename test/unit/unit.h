/*-------------------------------------------------------------------------
 *
 * unit.h
 *	  A minimal harness for the standalone unit tests of the pure-C layers.
 *
 * Each test program is one binary: UNIT_CHECK() counts an assertion, prints
 * the failing expression with file and line, and keeps going; UNIT_MAIN_END()
 * prints "<program>: N passed, N failed" and exits non-zero on any failure.
 * test/run_unit.sh sums the lines of every program.
 *
 * IDENTIFICATION
 *	  test/unit/unit.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef UNIT_H
#define UNIT_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned long unit_passed;
static unsigned long unit_failed;

#define UNIT_CHECK(cond) \
	do { \
		if (cond) \
			unit_passed++; \
		else \
		{ \
			unit_failed++; \
			if (unit_failed <= 50) \
				fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
		} \
	} while (0)

/* Like UNIT_CHECK, with a printf-style explanation on failure. */
#define UNIT_CHECKF(cond, ...) \
	do { \
		if (cond) \
			unit_passed++; \
		else \
		{ \
			unit_failed++; \
			if (unit_failed <= 50) \
			{ \
				fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
				fprintf(stderr, __VA_ARGS__); \
				fputc('\n', stderr); \
			} \
		} \
	} while (0)

#define UNIT_CHECK_MEM(a, b, n) UNIT_CHECKF(memcmp((a), (b), (n)) == 0, "memory differs")

#define UNIT_MAIN_END(name) \
	do { \
		printf("%s: %lu passed, %lu failed\n", (name), unit_passed, unit_failed); \
		return unit_failed ? 1 : 0; \
	} while (0)

/* Deterministic xorshift64* generator, so failures reproduce. */
static inline uint64_t
unit_rand(uint64_t *state)
{
	uint64_t	x = *state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * UINT64_C(2685821657736338717);
}

#endif							/* UNIT_H */
