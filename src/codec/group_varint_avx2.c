/*-------------------------------------------------------------------------
 *
 * group_varint_avx2.c
 *	  Shuffle-based GroupVarInt INT32 decoder (group_varint.c).
 *
 * Design notes: a group's leading byte fully determines where its four
 * values sit, so one pshufb with a per-key mask moves them into four
 * zero-extended 32-bit lanes.  The 256 masks and group sizes are built on
 * first use (PostgreSQL backends are single-threaded; the ready flag is
 * published with release order anyway).  Each group loads 16 bytes after
 * its leading byte, up to 12 past the group's end: the caller checks the
 * group fits in the input, so the over-read stays inside
 * CDC_INPUT_PADDING.  Every group writes exactly its four values.
 *
 * IDENTIFICATION
 *	  src/codec/group_varint_avx2.c
 *
 *-------------------------------------------------------------------------
 */
#include "codec/codec.h"
#include "codec/kernels.h"

#include <immintrin.h>

#define AVX2_FN		__attribute__((target("avx2")))

static uint8_t gv32_shuffle[256][16] __attribute__((aligned(16)));
static uint8_t gv32_size[256];	/* bytes of the group, leading byte included */
static bool gv32_ready;

static void
gv32_build_tables(void)
{
	for (unsigned key = 0; key < 256; key++)
	{
		unsigned	off = 0;

		for (unsigned j = 0; j < 4; j++)
		{
			unsigned	len = ((key >> (2 * j)) & 3) + 1;

			for (unsigned b = 0; b < 4; b++)
				gv32_shuffle[key][4 * j + b] = (uint8_t) (b < len ? off + b : 0x80);
			off += len;
		}
		gv32_size[key] = (uint8_t) (1 + off);
	}
	__atomic_store_n(&gv32_ready, true, __ATOMIC_RELEASE);
}

/*
 * Decode up to `groups` whole groups from [in, end) into out; returns the
 * bytes used and sets *done to the groups decoded (fewer when the next
 * group does not fit).
 */
AVX2_FN size_t
cdc_group_varint_decode32_avx2(const uint8_t *in, const uint8_t *end,
							   uint32_t *out, size_t groups, size_t *done)
{
	const uint8_t *pos = in;
	size_t		g = 0;

	if (!__atomic_load_n(&gv32_ready, __ATOMIC_ACQUIRE))
		gv32_build_tables();
	for (; g < groups && pos < end; g++)
	{
		unsigned	key = pos[0];
		__m128i		data;

		if ((size_t) (end - pos) < gv32_size[key])
			break;
		data = _mm_loadu_si128((const __m128i_u *) (pos + 1));
		data = _mm_shuffle_epi8(data, _mm_load_si128((const __m128i *) gv32_shuffle[key]));
		_mm_storeu_si128((__m128i_u *) (out + 4 * g), data);
		pos += gv32_size[key];
	}
	*done = g;
	return (size_t) (pos - in);
}
