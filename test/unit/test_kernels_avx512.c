/*-------------------------------------------------------------------------
 *
 * test_kernels_avx512.c
 *	  The AVX-512 kernels of byte_stream_split_avx512.c, delta_binary_avx512.c
 *	  and rle_avx512.c called directly (some are not dispatched, so the
 *	  every-ISA tests of test_bss / test_delta / test_rle do not reach
 *	  them) and compared with scalar references: every count 0..1023,
 *	  misaligned input and output, extreme values, and their no-padding
 *	  contract (input ending at a PROT_NONE page, guard bytes after the
 *	  output).  Skipped on CPUs without the avx512 level.
 *
 * IDENTIFICATION
 *	  test/unit/test_kernels_avx512.c
 *
 *-------------------------------------------------------------------------
 */
#include "unit.h"

#include "codec/codec.h"
#include "codec/delta.h"
#include "codec/kernels.h"

#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#define MAXN	1024
#define GUARD	64

/* A readable region of `len` bytes whose end touches a PROT_NONE page. */
static uint8_t *fence_base;
static size_t fence_size;

static void
fence_init(size_t max_len)
{
	size_t		page = (size_t) sysconf(_SC_PAGESIZE);

	fence_size = (max_len + page - 1) / page * page + page;
	fence_base = mmap(NULL, fence_size, PROT_READ | PROT_WRITE,
					  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (fence_base == MAP_FAILED ||
		mprotect(fence_base + fence_size - page, page, PROT_NONE) != 0)
	{
		fprintf(stderr, "mmap/mprotect failed\n");
		exit(2);
	}
}

/* Copy len bytes so they end right at the fence. */
static uint8_t *
fenced(const void *src, size_t len)
{
	size_t		page = (size_t) sysconf(_SC_PAGESIZE);
	uint8_t    *p = fence_base + (fence_size - page) - len;

	memcpy(p, src, len);
	return p;
}

/* ---- BYTE_STREAM_SPLIT widths 2, 4, 8 ---- */
typedef void (*BssFn) (const uint8_t *, size_t, uint8_t *, size_t);

static void
test_bss(void)
{
	static uint8_t values[MAXN * 8];
	static uint8_t split[MAXN * 8];
	static uint8_t got[MAXN * 8 + 8 + GUARD];
	static const BssFn fns[] = {cdc_bss_decode2_avx512, cdc_bss_decode4_avx512,
	cdc_bss_decode8_avx512};
	/* NaN payloads, infinities, -0.0, denormals, INT min/max as raw bits. */
	static const uint64_t specials[] = {
		UINT64_C(0x7FF0000000000001), UINT64_C(0xFFF8DEADBEEF0001),
		UINT64_C(0x7FC00001FFA00000), UINT64_C(0x8000000000000000),
		UINT64_C(0x7FFFFFFFFFFFFFFF), UINT64_C(0x0000000000000001),
		UINT64_C(0xFFFFFFFFFFFFFFFF), UINT64_C(0x7F8000017FC00001)
	};
	uint64_t	seed = 0xB55;

	for (int f = 0; f < 3; f++)
	{
		size_t		width = (size_t) 2 << f;

		for (size_t n = 0; n < MAXN; n++)
		{
			size_t		first = n % 5 == 0 ? 0 : n % 3;	/* a range inside the page */
			size_t		count = n - first;
			size_t		mis = n % 13;	/* output misalignment */
			const uint8_t *in;

			for (size_t i = 0; i < n * width; i++)
				values[i] = (uint8_t) unit_rand(&seed);
			if (n % 4 == 1)
				for (size_t i = 0; i < n; i++)
					memcpy(values + i * width, &specials[i % 8], width);
			for (size_t i = 0; i < n; i++)
				for (size_t k = 0; k < width; k++)
					split[k * n + i] = values[i * width + k];
			/* The last stream ends at the fence: any over-read faults. */
			in = fenced(split, n * width);
			memset(got, 0xA5, sizeof(got));
			fns[f] (in + first, n, got + mis, count);
			UNIT_CHECKF(memcmp(got + mis, values + first * width, count * width) == 0,
						"bss width %zu n %zu first %zu mis %zu", width, n, first, mis);
			/* Exactly count * width bytes written. */
			{
				bool		clean = true;

				for (size_t i = 0; i < mis; i++)
					clean &= got[i] == 0xA5;
				for (size_t i = mis + count * width; i < mis + count * width + GUARD; i++)
					clean &= got[i] == 0xA5;
				UNIT_CHECKF(clean, "bss width %zu n %zu: write outside the output", width, n);
			}
		}
	}
}

/* ---- DELTA_BINARY_PACKED prefix sums ---- */
static uint32_t
ref_prefix32(uint32_t *v, size_t n, uint32_t md, uint32_t prev)
{
	for (size_t i = 0; i < n; i++)
		v[i] = prev += md + v[i];
	return prev;
}

static uint64_t
ref_prefix64(uint64_t *v, size_t n, uint64_t md, uint64_t prev)
{
	for (size_t i = 0; i < n; i++)
		v[i] = prev += md + v[i];
	return prev;
}

static void
test_delta_prefix(void)
{
	static uint32_t in32[MAXN + 1],
				ref32[MAXN + 1],
				got32[MAXN + 1 + GUARD];
	static uint64_t in64[MAXN + 1],
				ref64[MAXN + 1],
				got64[MAXN + 1 + GUARD];
	/* min deltas and starting values that wrap either way */
	static const uint64_t md64[] = {0, 1, UINT64_C(0x8000000000000000),
		UINT64_C(0x7FFFFFFFFFFFFFFF), UINT64_MAX, UINT64_C(0xFFFFFFFF80000000)};
	static const uint32_t md32[] = {0, 1, 0x80000000u, 0x7FFFFFFFu, UINT32_MAX, 12345};
	uint64_t	seed = 0xDE17A;

	for (size_t n = 0; n < MAXN; n++)
	{
		int			e = (int) (n % 6);
		/* deltas: random, all ones (max width), or zero */
		int			shape = (int) (n / 6 % 3);
		size_t		mis = n % 2;	/* 4- / 8-byte misaligned vs 64-byte lines */
		uint32_t	prev32 = (uint32_t) md32[(e + 1) % 6] ^ 0x1F;
		uint64_t	prev64 = md64[(e + 2) % 6] ^ 0x3F;
		uint32_t	r32,
					g32;
		uint64_t	r64,
					g64;

		for (size_t i = 0; i < n; i++)
		{
			uint64_t	x = unit_rand(&seed);

			in64[i] = shape == 0 ? x : shape == 1 ? UINT64_MAX : 0;
			in32[i] = (uint32_t) in64[i];
		}
		memcpy(ref32, in32, n * 4);
		memcpy(ref64, in64, n * 8);
		r32 = ref_prefix32(ref32, n, md32[e], prev32);
		r64 = ref_prefix64(ref64, n, md64[e], prev64);

		for (size_t i = 0; i < MAXN + 1 + GUARD; i++)
		{
			got32[i] = 0xA5A5A5A5u;
			got64[i] = UINT64_C(0xA5A5A5A5A5A5A5A5);
		}
		memcpy(got32 + mis, in32, n * 4);
		memcpy(got64 + mis, in64, n * 8);
		g32 = cdc_delta_prefix32_avx512(got32 + mis, n, md32[e], prev32);
		g64 = cdc_delta_prefix64_avx512(got64 + mis, n, md64[e], prev64);
		UNIT_CHECKF(g32 == r32 && memcmp(got32 + mis, ref32, n * 4) == 0,
					"prefix32 n %zu md %u shape %d", n, md32[e], shape);
		UNIT_CHECKF(g64 == r64 && memcmp(got64 + mis, ref64, n * 8) == 0,
					"prefix64 n %zu md %llu shape %d", n,
					(unsigned long long) md64[e], shape);
		UNIT_CHECKF(got32[mis + n] == 0xA5A5A5A5u && (mis == 0 || got32[0] == 0xA5A5A5A5u) &&
					got64[mis + n] == UINT64_C(0xA5A5A5A5A5A5A5A5),
					"prefix n %zu: write past v[n)", n);
	}

	/* By hand: INT64 min/max and wrap-around. */
	{
		uint64_t	v[3] = {0, 0, 0};
		int64_t		expect[3] = {INT64_MAX, INT64_MIN, INT64_MIN + 1};

		/* prev = INT64_MAX - 1, min delta 1: MAX, then wraps to MIN, MIN + 1 */
		UNIT_CHECK(cdc_delta_prefix64_avx512(v, 3, 1, (uint64_t) INT64_MAX - 1) ==
				   (uint64_t) (INT64_MIN + 1));
		UNIT_CHECK(memcmp(v, expect, sizeof(v)) == 0);
	}
}

/* ---- RLE run fills ---- */
static void
test_fills(void)
{
	static uint32_t out32[MAXN + 16 + GUARD];
	static int16_t out16[MAXN + 32 + GUARD];
	static const uint32_t v32[] = {0, 1, 0x7FFFFFFFu, 0x80000000u, UINT32_MAX};

	for (size_t n = 0; n < MAXN; n++)
	{
		size_t		mis = n % 16;
		uint32_t	v = v32[n % 5];
		int16_t		h = (int16_t) (n % 3 == 0 ? -1 : n % 3 == 1 ? INT16_MIN : 7);
		bool		ok = true;

		memset(out32, 0xA5, sizeof(out32));
		memset(out16, 0xA5, sizeof(out16));
		cdc_fill32_avx512(out32 + mis, v, n);
		cdc_fill16_avx512(out16 + mis, h, n);
		for (size_t i = 0; i < sizeof(out32) / 4; i++)
			ok &= out32[i] == (i >= mis && i < mis + n ? v : 0xA5A5A5A5u);
		UNIT_CHECKF(ok, "fill32 n %zu mis %zu", n, mis);
		ok = true;
		for (size_t i = 0; i < sizeof(out16) / 2; i++)
			ok &= out16[i] == (i >= mis && i < mis + n ? h : (int16_t) 0xA5A5);
		UNIT_CHECKF(ok, "fill16 n %zu mis %zu", n, mis);
	}
}

int
main(void)
{
	if (!cdc_isa_supported(CDC_ISA_AVX512))
	{
		printf("test_kernels_avx512: skipped (no AVX-512 on this CPU)\n");
		UNIT_MAIN_END("test_kernels_avx512");
	}
	fence_init(MAXN * 8);
	test_bss();
	test_delta_prefix();
	test_fills();
	UNIT_MAIN_END("test_kernels_avx512");
}
