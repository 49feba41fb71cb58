/*-------------------------------------------------------------------------
 *
 * fsst.c
 *	  FSST string compression: symbol table (de)serialization, decoder,
 *	  table builder and greedy compressor.
 *
 * Formats and contracts are in fsst.h (amudai-format.md 4.3).
 *
 * Design notes:
 *	- Decoder.  Codes are walked in blocks of up to 256; a block runs
 *	  unchecked when its worst case (8 output bytes per code) fits the
 *	  output and its last escape still has its literal byte inside the input.
 *	  Every symbol is written with one 8-byte store (hence
 *	  CDC_FSST_OUTPUT_SLACK) and the output advances by its length.  Codes
 *	  beyond the table have length 0 in a local 256-entry copy and set a
 *	  flag tested once per block, so the loop has no validity branch.  The
 *	  rest of the input (and any block that might overflow) goes through a
 *	  checked per-code loop.
 *	- Compressor.  Greedy longest match: symbols of 2+ bytes are bucketed by
 *	  a hash of their first two bytes (longest first), 1-byte symbols sit in
 *	  a direct table; candidates are compared as masked 64-bit words, and a
 *	  byte no symbol covers is escaped (255, byte).
 *	- Builder.  Five rounds over the sample (the FSST paper's scheme,
 *	  simplified): compress with the current table while counting each code
 *	  and each pair of consecutive codes (escaped bytes count as pseudo-codes
 *	  256 + b), then keep the 255 candidates (single codes and concatenated
 *	  pairs, cut to 8 bytes) with the largest frequency * length.  A min-heap
 *	  of CDC_FSST_CANDIDATES entries keeps the best candidates without
 *	  storing all 2^18 pairs.
 *
 * IDENTIFICATION
 *	  src/codec/fsst.c
 *
 *-------------------------------------------------------------------------
 */
#include "codec/fsst.h"
#include "codec/kernels.h"

#include <stdlib.h>
#include <string.h>

#define FSST_BLOCK		256
#define FSST_ROUNDS		5

static inline uint64_t
length_mask(unsigned len)
{
	return len >= 8 ? ~UINT64_C(0) : (UINT64_C(1) << (8 * len)) - 1;
}

/* ----------------------------------------------------------------
 * Table serialization
 * ----------------------------------------------------------------
 */
CdcStatus
cdc_fsst_table_parse(const uint8_t *in, size_t in_len, unsigned symbols_count,
					 CdcFsstTable *table)
{
	if (symbols_count > CDC_FSST_MAX_SYMBOLS)
		return CDC_ERR_CORRUPT;
	if (in_len < 9 * (size_t) symbols_count)
		return CDC_ERR_TRUNCATED;
	table->count = symbols_count;
	for (unsigned i = 0; i < symbols_count; i++)
	{
		uint8_t		len = in[8 * (size_t) symbols_count + i];

		if (len < 1 || len > 8)
			return CDC_ERR_CORRUPT;
		table->lengths[i] = len;
		table->symbols[i] = cdc_load64(in + 8 * (size_t) i) & length_mask(len);
	}
	return CDC_OK;
}

size_t
cdc_fsst_table_size(const CdcFsstTable *table)
{
	return 9 * (size_t) table->count;
}

CdcStatus
cdc_fsst_table_write(const CdcFsstTable *table, uint8_t *out, size_t out_cap,
					 size_t *written)
{
	size_t		n = table->count;

	*written = 0;
	if (n > CDC_FSST_MAX_SYMBOLS)
		return CDC_ERR_INVALID_ARGUMENT;
	if (out_cap < 9 * n)
		return CDC_ERR_OUTPUT_FULL;
	memcpy(out, table->symbols, 8 * n);
	memcpy(out + 8 * n, table->lengths, n);
	*written = 9 * n;
	return CDC_OK;
}

/* ----------------------------------------------------------------
 * Decoder
 * ----------------------------------------------------------------
 */
CdcStatus
cdc_fsst_decompress(const CdcFsstTable *table, const uint8_t *in, size_t in_len,
					uint8_t *out, size_t out_cap, size_t *out_len)
{
	uint64_t	sym[256];
	uint8_t		len[256];
	const uint8_t *ip = in;
	const uint8_t *end;
	size_t		op = 0;

	*out_len = 0;
	if (table->count > CDC_FSST_MAX_SYMBOLS)
		return CDC_ERR_INVALID_ARGUMENT;
	if (in_len == 0)
		return CDC_OK;			/* in may be NULL */
	end = in + in_len;
	memset(len, 0, sizeof(len));
	memset(sym, 0, sizeof(sym));
	memcpy(sym, table->symbols, table->count * sizeof(uint64_t));
	memcpy(len, table->lengths, table->count);

	/* Unchecked blocks: the literal of an escape at the block's last code
	 * is at most at end - 1. */
	while (end - ip > 1)
	{
		size_t		n = (size_t) (end - ip) - 1;
		const uint8_t *block_end;
		unsigned	bad = 0;

		if (n > FSST_BLOCK)
			n = FSST_BLOCK;
		if (out_cap - op < 8 * n)
			break;
		block_end = ip + n;
		while (ip < block_end)
		{
			unsigned	c = *ip++;

			if (c == CDC_FSST_ESCAPE)
				out[op++] = *ip++;
			else
			{
				memcpy(out + op, &sym[c], 8);
				op += len[c];
				bad |= len[c] == 0;
			}
		}
		if (bad)
			return CDC_ERR_CORRUPT;
	}

	/* Checked tail. */
	while (ip < end)
	{
		unsigned	c = *ip++;

		if (c == CDC_FSST_ESCAPE)
		{
			if (ip == end)
				return CDC_ERR_CORRUPT;
			if (op == out_cap)
				return CDC_ERR_OUTPUT_FULL;
			out[op++] = *ip++;
		}
		else
		{
			if (len[c] == 0)
				return CDC_ERR_CORRUPT;
			if (out_cap - op < len[c])
				return CDC_ERR_OUTPUT_FULL;
			memcpy(out + op, &sym[c], 8);
			op += len[c];
		}
	}
	*out_len = op;
	return CDC_OK;
}

/* ----------------------------------------------------------------
 * Compressor
 * ----------------------------------------------------------------
 */

/*
 * Symbols of two or more bytes are bucketed by a hash of their first two
 * bytes, longest first within a bucket; one-byte symbols are a direct table.
 * The longest match is then the first hit of the bucket, else the one-byte
 * symbol, else an escape.
 */
#define FSST_BUCKETS	1024

typedef struct FsstIndex
{
	uint16_t	start[FSST_BUCKETS + 1];	/* bucket h: order[start[h] .. start[h+1]) */
	uint8_t		order[CDC_FSST_MAX_SYMBOLS];
	int16_t		single[256];				/* code of the 1-byte symbol, or -1 */
} FsstIndex;

static inline unsigned
prefix_bucket(uint64_t word)
{
	return (unsigned) (((word & 0xFFFF) * 0x9E3779B1u) >> 22) & (FSST_BUCKETS - 1);
}

static void
build_index(const CdcFsstTable *table, FsstIndex *index)
{
	uint16_t	fill[FSST_BUCKETS];

	memset(index->start, 0, sizeof(index->start));
	memset(index->single, 0xFF, sizeof(index->single));
	for (unsigned c = 0; c < table->count; c++)
	{
		if (table->lengths[c] == 1)
		{
			/* first one wins, as a linear scan would */
			if (index->single[table->symbols[c] & 0xFF] < 0)
				index->single[table->symbols[c] & 0xFF] = (int16_t) c;
		}
		else
			index->start[prefix_bucket(table->symbols[c]) + 1]++;
	}
	for (unsigned h = 0; h < FSST_BUCKETS; h++)
		index->start[h + 1] += index->start[h];
	memcpy(fill, index->start, sizeof(fill));
	/* insert by decreasing length, so each bucket is longest first */
	for (unsigned l = 8; l >= 2; l--)
		for (unsigned c = 0; c < table->count; c++)
			if (table->lengths[c] == l)
				index->order[fill[prefix_bucket(table->symbols[c])]++] = (uint8_t) c;
}

/* Longest symbol matching at p (rest bytes left), or -1. */
static inline int
match_at(const CdcFsstTable *table, const FsstIndex *index, const uint8_t *p,
		 size_t rest)
{
	uint64_t	word = 0;

	memcpy(&word, p, rest < 8 ? rest : 8);
	if (rest >= 2)
	{
		unsigned	h = prefix_bucket(word);

		for (unsigned k = index->start[h]; k < index->start[h + 1]; k++)
		{
			unsigned	c = index->order[k];
			unsigned	l = table->lengths[c];

			if (l <= rest && ((word ^ table->symbols[c]) & length_mask(l)) == 0)
				return (int) c;
		}
	}
	return index->single[p[0]];
}

size_t
cdc_fsst_max_compressed(size_t len)
{
	return 2 * len;
}

CdcStatus
cdc_fsst_compress(const CdcFsstTable *table, const uint8_t *in, size_t in_len,
				  uint8_t *out, size_t out_cap, size_t *written)
{
	FsstIndex	index;
	size_t		i = 0,
				op = 0;

	*written = 0;
	if (table->count > CDC_FSST_MAX_SYMBOLS)
		return CDC_ERR_INVALID_ARGUMENT;
	build_index(table, &index);
	while (i < in_len)
	{
		int			c = match_at(table, &index, in + i, in_len - i);

		if (c >= 0)
		{
			if (op == out_cap)
				return CDC_ERR_OUTPUT_FULL;
			out[op++] = (uint8_t) c;
			i += table->lengths[c];
		}
		else
		{
			if (out_cap - op < 2)
				return CDC_ERR_OUTPUT_FULL;
			out[op++] = CDC_FSST_ESCAPE;
			out[op++] = in[i++];
		}
	}
	*written = op;
	return CDC_OK;
}

/* ----------------------------------------------------------------
 * Table builder
 * ----------------------------------------------------------------
 */

/* Bytes and length of a pseudo-code (symbol or 256 + literal byte). */
static inline void
code_symbol(const CdcFsstTable *table, unsigned code, uint64_t *sym, unsigned *len)
{
	if (code >= 256)
	{
		*sym = code - 256;
		*len = 1;
	}
	else
	{
		*sym = table->symbols[code];
		*len = table->lengths[code];
	}
}

static void
heap_sift_down(CdcFsstCandidate *h, unsigned n, unsigned i)
{
	for (;;)
	{
		unsigned	l = 2 * i + 1,
					m = i;
		CdcFsstCandidate t;

		if (l < n && h[l].gain < h[m].gain)
			m = l;
		if (l + 1 < n && h[l + 1].gain < h[m].gain)
			m = l + 1;
		if (m == i)
			return;
		t = h[i];
		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

static void
heap_offer(CdcFsstBuilder *b, uint64_t sym, unsigned len, uint64_t gain)
{
	CdcFsstCandidate *h = b->heap;

	if (b->heap_len < CDC_FSST_CANDIDATES)
	{
		unsigned	i = b->heap_len++;

		h[i].symbol = sym;
		h[i].length = (uint8_t) len;
		h[i].gain = gain;
		while (i > 0 && h[(i - 1) / 2].gain > h[i].gain)
		{
			CdcFsstCandidate t = h[i];

			h[i] = h[(i - 1) / 2];
			h[(i - 1) / 2] = t;
			i = (i - 1) / 2;
		}
	}
	else if (gain > h[0].gain)
	{
		h[0].symbol = sym;
		h[0].length = (uint8_t) len;
		h[0].gain = gain;
		heap_sift_down(h, CDC_FSST_CANDIDATES, 0);
	}
}

/* One round: count codes and pairs while compressing the sample. */
static void
count_sample(CdcFsstBuilder *b, const CdcFsstTable *table, const FsstIndex *index,
			 const CdcByteView *sample, size_t sample_count)
{
	memset(b->single, 0, sizeof(b->single));
	memset(b->pair, 0, sizeof(b->pair));
	for (size_t s = 0; s < sample_count; s++)
	{
		const uint8_t *p = sample[s].ptr;
		size_t		n = sample[s].len;
		size_t		i = 0;
		unsigned	prev = 512;

		while (i < n)
		{
			int			c = match_at(table, index, p + i, n - i);
			unsigned	code;

			if (c >= 0)
			{
				code = (unsigned) c;
				i += table->lengths[c];
			}
			else
				code = 256 + p[i++];
			b->single[code]++;
			if (prev < 512)
				b->pair[prev * 512 + code]++;
			prev = code;
		}
	}
}

static int
cmp_gain_desc(const void *a, const void *b)
{
	const CdcFsstCandidate *x = a;
	const CdcFsstCandidate *y = b;

	if (x->gain != y->gain)
		return x->gain < y->gain ? 1 : -1;
	if (x->length != y->length)
		return x->length < y->length ? 1 : -1;
	return x->symbol < y->symbol ? -1 : x->symbol > y->symbol;
}

CdcStatus
cdc_fsst_build(CdcFsstBuilder *builder, const CdcByteView *sample,
			   size_t sample_count, CdcFsstTable *table)
{
	CdcFsstTable current;
	FsstIndex	index;

	current.count = 0;
	for (int round = 0; round < FSST_ROUNDS; round++)
	{
		CdcFsstTable next;

		build_index(&current, &index);
		count_sample(builder, &current, &index, sample, sample_count);
		builder->heap_len = 0;
		for (unsigned a = 0; a < 512; a++)
		{
			uint64_t	sa;
			unsigned	la;

			if (builder->single[a] == 0)
				continue;
			code_symbol(&current, a, &sa, &la);
			heap_offer(builder, sa, la, (uint64_t) builder->single[a] * la);
			if (la == 8)
				continue;		/* a concatenation would be cut back to a */
			for (unsigned c = 0; c < 512; c++)
			{
				uint32_t	f = builder->pair[a * 512 + c];
				uint64_t	sc;
				unsigned	lc,
							l;

				if (f == 0)
					continue;
				code_symbol(&current, c, &sc, &lc);
				l = la + lc > 8 ? 8 : la + lc;
				heap_offer(builder, (sa | (sc << (8 * la))) & length_mask(l), l,
						   (uint64_t) f * l);
			}
		}
		qsort(builder->heap, builder->heap_len, sizeof(CdcFsstCandidate), cmp_gain_desc);
		next.count = 0;
		for (unsigned k = 0; k < builder->heap_len && next.count < CDC_FSST_MAX_SYMBOLS; k++)
		{
			const CdcFsstCandidate *cand = &builder->heap[k];
			bool		dup = false;

			for (unsigned j = 0; j < next.count && !dup; j++)
				dup = next.lengths[j] == cand->length && next.symbols[j] == cand->symbol;
			if (dup)
				continue;
			next.symbols[next.count] = cand->symbol;
			next.lengths[next.count] = cand->length;
			next.count++;
		}
		current = next;
	}
	*table = current;
	return CDC_OK;
}
