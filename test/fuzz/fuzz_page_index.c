/*-------------------------------------------------------------------------
 *
 * fuzz_page_index.c
 *	  libFuzzer target: ColumnIndex, OffsetIndex and BloomFilterHeader
 *	  decoders on arbitrary bytes.
 *
 * Input: byte 0 selects the decoder (mod 3); the rest is the Thrift
 * encoding, copied to a heap buffer of exactly its size so ASan sees any
 * over-read.  Oracles: the status is OK or CORRUPT (UNSUPPORTED for bloom
 * headers); a decoded index is internally consistent (list lengths,
 * row order, sizes) and every value byte is readable after the input
 * buffer is freed (indexes own a copy).
 *
 * IDENTIFICATION
 *	  test/fuzz/fuzz_page_index.c
 *
 *-------------------------------------------------------------------------
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "parquet/page_index.h"

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile uint8_t sink;

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t    *buf;
	size_t		len;
	PqError		err;
	PqStatus	st;

	if (size < 1)
		return 0;
	len = size - 1;
	buf = malloc(len > 0 ? len : 1);
	memcpy(buf, data + 1, len);

	switch (data[0] % 3)
	{
		case 0:
			{
				PqColumnIndex *ci = NULL;

				st = pq_column_index_decode(buf, len, NULL, &ci, &err);
				free(buf);
				buf = NULL;
				if (st == PQ_OK)
				{
					if (ci == NULL || ci->boundary_order > PQ_BOUNDARY_DESCENDING)
						abort();
					for (uint32_t i = 0; i < ci->num_pages; i++)
					{
						sink ^= ci->null_pages[i];
						for (uint32_t k = 0; k < ci->min_values[i].len; k++)
							sink ^= ci->min_values[i].data[k];
						for (uint32_t k = 0; k < ci->max_values[i].len; k++)
							sink ^= ci->max_values[i].data[k];
						if (ci->has_null_counts)
							sink ^= (uint8_t) ci->null_counts[i];
					}
					pq_column_index_free(ci);
				}
				else if (st != PQ_ERR_CORRUPT || ci != NULL)
					abort();
				break;
			}
		case 1:
			{
				PqOffsetIndex *oi = NULL;

				st = pq_offset_index_decode(buf, len, NULL, &oi, &err);
				if (st == PQ_OK)
				{
					for (uint32_t i = 0; i < oi->num_pages; i++)
					{
						const PqPageLocation *p = &oi->pages[i];

						if (p->compressed_page_size <= 0 || p->offset < 0 ||
							(i == 0 && p->first_row_index != 0) ||
							(i > 0 && p->first_row_index < oi->pages[i - 1].first_row_index))
							abort();
						if (oi->has_unencoded_byte_array_data_bytes)
							sink ^= (uint8_t) oi->unencoded_byte_array_data_bytes[i];
					}
					pq_offset_index_free(oi);
				}
				else if (st != PQ_ERR_CORRUPT || oi != NULL)
					abort();
				break;
			}
		case 2:
			{
				PqBloomFilterHeader hdr;

				st = pq_bloom_filter_header_decode(buf, len, &hdr, &err);
				if (st == PQ_OK)
				{
					if (hdr.num_bytes == 0 || hdr.num_bytes % 32 != 0 ||
						hdr.header_length > len)
						abort();
					/* probe whatever bitset bytes follow the header */
					if (len - hdr.header_length >= 32)
					{
						uint32_t	blen = (uint32_t) ((len - hdr.header_length) & ~(size_t) 31);
						uint64_t	h = 0;

						memcpy(&h, buf, len < 8 ? len : 8);
						sink ^= pfc_sbbf_probe(buf + hdr.header_length, blen, h);
					}
				}
				else if (st != PQ_ERR_CORRUPT && st != PQ_ERR_UNSUPPORTED)
					abort();
				break;
			}
	}
	free(buf);
	return 0;
}
