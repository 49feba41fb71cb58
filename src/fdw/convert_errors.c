/*-------------------------------------------------------------------------
 *
 * convert_errors.c
 *	  Errors about values the Parquet converter cannot represent, and the
 *	  row they came from (pf_converter_failed_index).
 *
 * IDENTIFICATION
 *	  src/fdw/convert_errors.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <string.h>

#include "mb/pg_wchar.h"

#include "fdw/convert_internal.h"

/*
 * The values a flat column's conversion is reading, so that an error about
 * one value can say which row holds it: conversion errors are rare, so the
 * row is found by searching the batch for the value, not tracked per value
 * (rows before it converted, so the first match is the one).
 */
static struct
{
	const uint8 *vals;			/* NULL outside fill_scalar_column() */
	uint32		width;
	const bool *is_null;
	uint32		n;
	int64		failed;			/* index of the failing value, or -1 */
}			cur_batch = {NULL, 0, NULL, 0, -1};

static void
note_failed_bytes(const void *raw, size_t len)
{
	if (cur_batch.vals == NULL || len > cur_batch.width)
		return;
	for (uint32 i = 0; i < cur_batch.n; i++)
		if ((cur_batch.is_null == NULL || !cur_batch.is_null[i]) &&
			memcmp(cur_batch.vals + (size_t) i * cur_batch.width, raw, len) == 0)
		{
			cur_batch.failed = i;
			return;
		}
}

/* An integer physical value (INT32 or INT64, as the batch stores it). */
static void
note_failed_integer(int64 raw)
{
	int32		raw32 = (int32) raw;

	if (cur_batch.width == 4)
		note_failed_bytes(&raw32, 4);
	else
		note_failed_bytes(&raw, 8);
}

void
pf_conv_track_values(const void *vals, uint32 width, const bool *is_null,
					 uint32 n)
{
	cur_batch.vals = vals;
	cur_batch.width = width;
	cur_batch.is_null = is_null;
	cur_batch.n = n;
}

void
pf_conv_reset_failed(void)
{
	cur_batch.vals = NULL;
	cur_batch.failed = -1;
}

int64 *
pf_conv_failed_slot(void)
{
	return &cur_batch.failed;
}

int64
pf_converter_failed_index(void)
{
	return cur_batch.failed;
}

void
pf_conv_date_out_of_range(const PfScalar *sc, int64 days)
{
	note_failed_integer(days);
	ereport(ERROR,
			(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
			 errmsg("date out of range: %lld days from 1970-01-01",
					(long long) days),
			 errdetail("Column \"%s\" holds a date outside PostgreSQL's range.",
					   sc->column_name)));
}

void
pf_conv_timestamp_out_of_range(const PfScalar *sc, int64 value, const char *unit)
{
	note_failed_integer(value);
	ereport(ERROR,
			(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
			 errmsg("timestamp out of range: %lld %s from 1970-01-01 00:00:00",
					(long long) value, unit),
			 errdetail("Column \"%s\" holds a timestamp outside PostgreSQL's range.",
					   sc->column_name)));
}

void
pf_conv_int96_out_of_range(const PfScalar *sc, int64 nanos, int32 julian)
{
	uint8		raw[12];

	memcpy(raw, &nanos, 8);
	memcpy(raw + 8, &julian, 4);
	note_failed_bytes(raw, 12);
	ereport(ERROR,
			(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
			 errmsg("timestamp out of range: Julian day %d, %lld nanoseconds",
					julian, (long long) nanos),
			 errdetail("Column \"%s\" holds an INT96 timestamp outside PostgreSQL's range.",
					   sc->column_name)));
}

void
pf_conv_time_out_of_range(const PfScalar *sc, int64 value, const char *unit)
{
	note_failed_integer(value);
	ereport(ERROR,
			(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
			 errmsg("time out of range: %lld %s", (long long) value, unit),
			 errdetail("Column \"%s\" holds a time of day outside 00:00:00 to 24:00:00.",
					   sc->column_name)));
}

void
pf_conv_interval_out_of_range(const PfScalar *sc, uint32 months, uint32 days)
{
	uint32		raw[2] = {months, days};

	note_failed_bytes(raw, 8);	/* the millisecond part is never at fault */
	ereport(ERROR,
			(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
			 errmsg("interval out of range: %u months, %u days", months, days),
			 errdetail("Column \"%s\" holds an INTERVAL that PostgreSQL cannot represent.",
					   sc->column_name)));
}

void
pf_conv_invalid_utf8(const PfScalar *sc, const uint8 *ptr, uint32 len)
{
	int			valid = pg_encoding_verifymbstr(PG_UTF8, (const char *) ptr, len);
	char		buf[8 * 5 + 1];
	char	   *p = buf;

	/* name the offending bytes as PostgreSQL does: up to 8, in hex */
	for (uint32 i = valid; i < len && i < (uint32) valid + 8; i++)
	{
		if (p != buf)
			*p++ = ' ';
		p += sprintf(p, "0x%02x", ptr[i]);
	}
	*p = '\0';
	ereport(ERROR,
			(errcode(ERRCODE_CHARACTER_NOT_IN_REPERTOIRE),
			 errmsg("invalid byte sequence for encoding \"UTF8\" in column \"%s\": %s",
					sc->column_name, buf),
			 errdetail("Parquet STRING values must be valid UTF-8 without zero bytes."),
			 errhint("Declare the column as bytea to read the raw bytes.")));
}

void
pf_conv_levels_corrupt(const char *column_name)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATA_CORRUPTED),
			 errmsg("inconsistent repetition or definition levels in column \"%s\"",
					column_name)));
}

