/*-------------------------------------------------------------------------
 *
 * test_dispatch.c
 *	  Unit tests of dispatch.c: ISA names, forcing ISAs, PARQUET_FDW_SIMD,
 *	  status messages, and the varint.h helpers.
 *
 * The environment variable is read at the first cdc_isa_current() of a
 * process, so each setting runs in a re-executed copy of this program
 * ("test_dispatch --child NAME EXPECTED").
 *
 * IDENTIFICATION
 *	  test/unit/test_dispatch.c
 *
 *-------------------------------------------------------------------------
 */
#include "unit.h"

#include "codec/codec.h"
#include "codec/varint.h"

#include <sys/wait.h>
#include <unistd.h>

/* Run self with PARQUET_FDW_SIMD=env; the child checks the ISA it gets. */
static int
run_child(const char *self, const char *env, CdcIsa expect)
{
	pid_t		pid = fork();
	int			status;

	if (pid == 0)
	{
		char		expect_s[8];

		snprintf(expect_s, sizeof(expect_s), "%d", (int) expect);
		if (env)
			setenv("PARQUET_FDW_SIMD", env, 1);
		else
			unsetenv("PARQUET_FDW_SIMD");
		execl(self, self, "--child", expect_s, (char *) NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return 0;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static void
test_isa(const char *self)
{
	CdcIsa		best = cdc_isa_best();
	CdcIsa		isa;

	UNIT_CHECK(cdc_isa_supported(CDC_ISA_SCALAR));
	UNIT_CHECK(cdc_isa_supported(best));
	UNIT_CHECK(!cdc_isa_supported(CDC_ISA_COUNT));
	UNIT_CHECK(strcmp(cdc_isa_name(CDC_ISA_SCALAR), "scalar") == 0);
	UNIT_CHECK(strcmp(cdc_isa_name(CDC_ISA_AVX2), "avx2") == 0);
	UNIT_CHECK(strcmp(cdc_isa_name(CDC_ISA_AVX512), "avx512") == 0);
	UNIT_CHECK(cdc_isa_from_name("AVX2", &isa) && isa == CDC_ISA_AVX2);
	UNIT_CHECK(cdc_isa_from_name("auto", &isa) && isa == best);
	UNIT_CHECK(!cdc_isa_from_name("sse9", &isa));
	UNIT_CHECK(!cdc_isa_from_name(NULL, &isa));
	for (int i = 0; i < CDC_ISA_COUNT; i++)
	{
		CdcStatus	st = cdc_set_isa((CdcIsa) i);

		if (cdc_isa_supported((CdcIsa) i))
			UNIT_CHECK(st == CDC_OK && cdc_isa_current() == (CdcIsa) i);
		else
			UNIT_CHECK(st == CDC_ERR_UNSUPPORTED && cdc_isa_current() != (CdcIsa) i);
	}
	UNIT_CHECK(cdc_set_isa(CDC_ISA_COUNT) == CDC_ERR_INVALID_ARGUMENT);
	UNIT_CHECK(cdc_set_isa((CdcIsa) -1) == CDC_ERR_INVALID_ARGUMENT);
	printf("test_dispatch: best ISA here is %s\n", cdc_isa_name(best));

	/* The environment, read once at first use. */
	UNIT_CHECK(run_child(self, NULL, best));
	UNIT_CHECK(run_child(self, "scalar", CDC_ISA_SCALAR));
	UNIT_CHECK(run_child(self, "Auto", best));
	UNIT_CHECK(run_child(self, "bogus", best));
	UNIT_CHECK(run_child(self, "avx2", cdc_isa_supported(CDC_ISA_AVX2) ? CDC_ISA_AVX2 : best));
	UNIT_CHECK(run_child(self, "avx512", cdc_isa_supported(CDC_ISA_AVX512) ? CDC_ISA_AVX512 : best));
	/* A failing child must be visible, or the checks above prove nothing. */
	UNIT_CHECK(!run_child(self, "scalar", CDC_ISA_COUNT));
}

static void
test_status(void)
{
	for (int i = 0; i <= CDC_ERR_INVALID_ARGUMENT; i++)
	{
		const char *m = cdc_status_message((CdcStatus) i);

		UNIT_CHECK(m != NULL && m[0] != '\0' && m[strlen(m) - 1] != '.');
		for (int j = 0; j < i; j++)
			UNIT_CHECK(strcmp(m, cdc_status_message((CdcStatus) j)) != 0);
	}
	UNIT_CHECK(strcmp(cdc_status_message(CDC_ERR_TRUNCATED), "encoded data is truncated") == 0);
	UNIT_CHECK(strcmp(cdc_status_message((CdcStatus) 99), "unknown codec status") == 0);
}

static int
uleb_ok(const uint8_t *b, size_t len, uint64_t expect, size_t expect_len)
{
	const uint8_t *p = b;
	uint64_t	v = 0;

	return cdc_uleb128_read(&p, b + len, &v) && v == expect && (size_t) (p - b) == expect_len;
}

static int
uleb_fails(const uint8_t *b, size_t len)
{
	const uint8_t *p = b;
	uint64_t	v = 777;

	return !cdc_uleb128_read(&p, b + len, &v) && p == b && v == 777;
}

static void
test_varint(void)
{
	/* LEB128 examples: 624485 = E5 8E 26; 300 = AC 02. */
	static const uint8_t a[] = {0xE5, 0x8E, 0x26};
	static const uint8_t b[] = {0xAC, 0x02};
	static const uint8_t max64[] = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01};
	static const uint8_t over[] = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x02};
	static const uint8_t eleven[] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00};
	static const uint8_t redundant[] = {0x80, 0x00};
	uint8_t		buf[CDC_ULEB128_MAX_BYTES];
	uint64_t	seed = 17;
	unsigned long bad = 0;
	uint32_t	v32;
	const uint8_t *p;

	UNIT_CHECK(uleb_ok(a, 3, 624485, 3));
	UNIT_CHECK(uleb_ok(b, 2, 300, 2));
	UNIT_CHECK(uleb_ok(max64, 10, UINT64_MAX, 10));
	UNIT_CHECK(uleb_ok(redundant, 2, 0, 2));
	UNIT_CHECK(uleb_fails(over, 10));
	UNIT_CHECK(uleb_fails(eleven, 11));
	UNIT_CHECK(uleb_fails(a, 2));
	UNIT_CHECK(uleb_fails(a, 0));
	UNIT_CHECK(cdc_uleb128_write(buf, 624485) == 3 && memcmp(buf, a, 3) == 0);
	UNIT_CHECK(cdc_uleb128_write(buf, UINT64_MAX) == 10 && memcmp(buf, max64, 10) == 0);
	UNIT_CHECK(cdc_uleb128_write(buf, 0) == 1 && buf[0] == 0);
	p = max64;
	UNIT_CHECK(!cdc_uleb128_read32(&p, max64 + 10, &v32) && p == max64);
	p = a;
	UNIT_CHECK(cdc_uleb128_read32(&p, a + 3, &v32) && v32 == 624485 && p == a + 3);
	for (int i = 0; i < 100000; i++)
	{
		uint64_t	v = unit_rand(&seed) >> (unit_rand(&seed) % 64);
		size_t		n = cdc_uleb128_write(buf, v);

		if (n != cdc_uleb128_size(v) || !uleb_ok(buf, n, v, n) || uleb_fails(buf, n) ||
			!uleb_fails(buf, n - 1))
			bad++;
	}
	UNIT_CHECKF(bad == 0, "%lu varint round trips failed", bad);

	/* Zigzag: 0 -1 1 -2 2 <-> 0 1 2 3 4, and the extremes. */
	UNIT_CHECK(cdc_zigzag_encode32(0) == 0 && cdc_zigzag_encode32(-1) == 1 &&
			   cdc_zigzag_encode32(1) == 2 && cdc_zigzag_encode32(-2) == 3);
	UNIT_CHECK(cdc_zigzag_encode32(INT32_MAX) == UINT32_MAX - 1);
	UNIT_CHECK(cdc_zigzag_encode32(INT32_MIN) == UINT32_MAX);
	UNIT_CHECK(cdc_zigzag_encode64(INT64_MIN) == UINT64_MAX);
	UNIT_CHECK(cdc_zigzag_encode64(INT64_MAX) == UINT64_MAX - 1);
	UNIT_CHECK(cdc_zigzag_decode64(UINT64_MAX) == INT64_MIN);
	UNIT_CHECK(cdc_zigzag_decode32(3) == -2 && cdc_zigzag_decode32(4) == 2);
	bad = 0;
	for (int i = 0; i < 100000; i++)
	{
		int64_t		v = (int64_t) unit_rand(&seed);
		int32_t		w = (int32_t) v;

		if (cdc_zigzag_decode64(cdc_zigzag_encode64(v)) != v ||
			cdc_zigzag_decode32(cdc_zigzag_encode32(w)) != w ||
			cdc_zigzag_encode64(v) != ((v < 0) ? 2 * (~(uint64_t) v) + 1 : 2 * (uint64_t) v))
			bad++;
	}
	UNIT_CHECKF(bad == 0, "%lu zigzag round trips failed", bad);
}

int
main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "--child") == 0)
		return cdc_isa_current() == (CdcIsa) atoi(argv[2]) ? 0 : 1;
	test_isa("/proc/self/exe");
	test_status();
	test_varint();
	UNIT_MAIN_END("test_dispatch");
}
