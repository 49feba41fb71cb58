/*-------------------------------------------------------------------------
 *
 * convert_temporal.c
 *	  Scalar fills of dates, times (timetz when UTC-adjusted), timestamps in
 *	  milli-, micro- and nanoseconds, INT96 timestamps and INTERVALs: each
 *	  value range-checked against PostgreSQL's.
 *
 * IDENTIFICATION
 *	  src/fdw/convert_temporal.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <string.h>

#include "common/int.h"
#include "datatype/timestamp.h"
#include "utils/date.h"
#include "utils/timestamp.h"

#include "fdw/convert_internal.h"

static inline Datum
cv_date(const PfScalar *sc, int32 v)
{
	int64		d = (int64) v - PF_UNIX_EPOCH_OFFSET_DAYS;

	if (unlikely(!IS_VALID_DATE(d)))
		pf_conv_date_out_of_range(sc, v);
	return DateADTGetDatum((DateADT) d);
}

/* Round nanoseconds to microseconds, halves away from zero (as PostgreSQL
 * rounds fractional seconds to a typmod). */
static inline int64
nanos_to_micros(int64 v)
{
	int64		q = v / 1000;
	int64		r = v % 1000;

	if (r >= 500)
		q++;
	else if (r <= -500)
		q--;
	return q;
}

static inline int64
time_check(const PfScalar *sc, int64 us, int64 raw, const char *unit)
{
	if (unlikely(us < 0 || us > USECS_PER_DAY))
		pf_conv_time_out_of_range(sc, raw, unit);
	return us;
}

static inline Datum
cv_time_ms(const PfScalar *sc, int32 v)
{
	return TimeADTGetDatum(time_check(sc, (int64) v * 1000, v, "milliseconds"));
}

static inline Datum
cv_time_us(const PfScalar *sc, int64 v)
{
	return TimeADTGetDatum(time_check(sc, v, v, "microseconds"));
}

static inline Datum
cv_time_ns(const PfScalar *sc, int64 v)
{
	return TimeADTGetDatum(time_check(sc, nanos_to_micros(v), v, "nanoseconds"));
}

static inline Datum
make_timetz(int64 us)
{
	TimeTzADT  *t = (TimeTzADT *) palloc(sizeof(TimeTzADT));

	t->time = us;
	t->zone = 0;
	return TimeTzADTPGetDatum(t);
}

static inline Datum
cv_timetz_ms(const PfScalar *sc, int32 v)
{
	return make_timetz(time_check(sc, (int64) v * 1000, v, "milliseconds"));
}

static inline Datum
cv_timetz_us(const PfScalar *sc, int64 v)
{
	return make_timetz(time_check(sc, v, v, "microseconds"));
}

static inline Datum
cv_timetz_ns(const PfScalar *sc, int64 v)
{
	return make_timetz(time_check(sc, nanos_to_micros(v), v, "nanoseconds"));
}

/* Microseconds since the Unix epoch to a checked PostgreSQL Timestamp. */
static inline Datum
timestamp_from_unix_us(const PfScalar *sc, int64 us, int64 raw, const char *unit)
{
	int64		ts;

	if (unlikely(pg_sub_s64_overflow(us, PF_UNIX_EPOCH_OFFSET_USECS, &ts) ||
				 !IS_VALID_TIMESTAMP(ts)))
		pf_conv_timestamp_out_of_range(sc, raw, unit);
	return TimestampGetDatum(ts);
}

static inline Datum
cv_ts_ms(const PfScalar *sc, int64 v)
{
	int64		us;

	if (unlikely(pg_mul_s64_overflow(v, 1000, &us)))
		pf_conv_timestamp_out_of_range(sc, v, "milliseconds");
	return timestamp_from_unix_us(sc, us, v, "milliseconds");
}

static inline Datum
cv_ts_us(const PfScalar *sc, int64 v)
{
	return timestamp_from_unix_us(sc, v, v, "microseconds");
}

static inline Datum
cv_ts_ns(const PfScalar *sc, int64 v)
{
	return timestamp_from_unix_us(sc, nanos_to_micros(v), v, "nanoseconds");
}

/* INT96: 8-byte LE nanoseconds of the day, then 4-byte LE Julian day. */
static inline Datum
cv_int96(const PfScalar *sc, const uint8 *p)
{
	int64		nanos;
	int32		julian;
	uint64		unix_us;
	int64		ts;

	memcpy(&nanos, p, 8);
	memcpy(&julian, p + 8, 4);

	/*
	 * Microseconds since 1970 computed as Spark and Impala read INT96, in
	 * wrapping 64-bit arithmetic: writers that overflowed int64 nanoseconds
	 * produced (day, nanos) pairs that only this reading maps back to the
	 * intended instant (int96_from_spark.parquet's year 290000).  Values
	 * that never overflowed read the same either way.
	 */
	unix_us = (uint64) ((int64) julian - UNIX_EPOCH_JDATE) * (uint64) USECS_PER_DAY +
		(uint64) nanos_to_micros(nanos);
	if (unlikely(pg_sub_s64_overflow((int64) unix_us, PF_UNIX_EPOCH_OFFSET_USECS, &ts) ||
				 !IS_VALID_TIMESTAMP(ts)))
		pf_conv_int96_out_of_range(sc, nanos, julian);
	return TimestampGetDatum(ts);
}

static inline Datum
cv_interval(const PfScalar *sc, const uint8 *p)
{
	uint32		months;
	uint32		days;
	uint32		millis;
	Interval   *iv;

	memcpy(&months, p, 4);
	memcpy(&days, p + 4, 4);
	memcpy(&millis, p + 8, 4);
	if (unlikely(months > PG_INT32_MAX || days > PG_INT32_MAX))
		pf_conv_interval_out_of_range(sc, months, days);
	iv = (Interval *) palloc(sizeof(Interval));
	iv->month = (int32) months;
	iv->day = (int32) days;
	iv->time = (int64) millis * 1000;
	return IntervalPGetDatum(iv);
}

PF_DEFINE_FILL(pf_fill_date, int32, cv_date)
PF_DEFINE_FILL(pf_fill_time_ms, int32, cv_time_ms)
PF_DEFINE_FILL(pf_fill_time_us, int64, cv_time_us)
PF_DEFINE_FILL(pf_fill_time_ns, int64, cv_time_ns)
PF_DEFINE_FILL(pf_fill_timetz_ms, int32, cv_timetz_ms)
PF_DEFINE_FILL(pf_fill_timetz_us, int64, cv_timetz_us)
PF_DEFINE_FILL(pf_fill_timetz_ns, int64, cv_timetz_ns)
PF_DEFINE_FILL(pf_fill_ts_ms, int64, cv_ts_ms)
PF_DEFINE_FILL(pf_fill_ts_us, int64, cv_ts_us)
PF_DEFINE_FILL(pf_fill_ts_ns, int64, cv_ts_ns)
PF_DEFINE_FILL_FLBA(pf_fill_int96, cv_int96)
PF_DEFINE_FILL_FLBA(pf_fill_interval, cv_interval)
