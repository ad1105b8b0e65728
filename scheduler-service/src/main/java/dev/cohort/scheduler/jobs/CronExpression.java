package dev.cohort.scheduler.jobs;

import java.time.DayOfWeek;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.temporal.ChronoUnit;
import java.time.zone.ZoneOffsetTransition;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * A 5-field cron expression with standard (Vixie cron) semantics, immutable and thread-safe.
 *
 * <p>Supported: {@code *}, lists, ranges, steps on {@code *} and on ranges ({@code a-b/n}; {@code *}{@code /n} counts
 * from the field's minimum, so day-of-month {@code *}{@code /2} is 1, 3, 5…), month and weekday names
 * ({@code JAN}–{@code DEC}, {@code SUN}–{@code SAT}, any case), {@code 7} = Sunday, and the macros {@code @hourly},
 * {@code @daily}/{@code @midnight}, {@code @weekly}, {@code @monthly}, {@code @yearly}/{@code @annually}.
 *
 * <p>Day rule (as Vixie cron): when day-of-month and day-of-week are both restricted, a day matches if
 * <em>either</em> matches; a field is unrestricted when it starts with {@code *} (so {@code *}{@code /2} counts as
 * unrestricted, as in Vixie cron and cronie), and then a day must match both.
 *
 * <p>Not supported, rejected with a message: seconds (6 fields), {@code a/n} without a range (Vixie rejects it),
 * Quartz's {@code ? L W #}, {@code @reboot}, backwards ranges.
 */
public final class CronExpression {

    /** Far enough to find Feb 29 on a given weekday (gaps up to 40 years across 2100); cheap with month skipping. */
    private static final int SEARCH_HORIZON_YEARS = 50;

    private static final Pattern WHITESPACE = Pattern.compile("\\s+");
    private static final Pattern COMMA = Pattern.compile(",");

    private static final Map<String, String> MACROS = Map.of(
            "@yearly", "0 0 1 1 *",
            "@annually", "0 0 1 1 *",
            "@monthly", "0 0 1 * *",
            "@weekly", "0 0 * * 0",
            "@daily", "0 0 * * *",
            "@midnight", "0 0 * * *",
            "@hourly", "0 * * * *");

    private static final List<String> MONTH_NAMES = List.of("JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG",
            "SEP", "OCT", "NOV", "DEC");
    private static final List<String> DAY_NAMES = List.of("SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT");

    /** One of the five fields: its name in error messages, its bounds, and the values {@code *} stands for. */
    private enum Field {
        MINUTE("minute", 0, 59, 0, 59, null, 0),
        HOUR("hour", 0, 23, 0, 23, null, 0),
        DAY_OF_MONTH("day-of-month", 1, 31, 1, 31, null, 0),
        MONTH("month", 1, 12, 1, 12, MONTH_NAMES, 1),
        /** 0-7 are accepted, 7 being Sunday again; {@code *} means 0-6. */
        DAY_OF_WEEK("day-of-week", 0, 7, 0, 6, DAY_NAMES, 0);

        final String label;
        final int min;
        final int max;
        final int starMin;
        final int starMax;
        final List<String> names;
        final int firstNameValue;

        Field(String label, int min, int max, int starMin, int starMax, List<String> names, int firstNameValue) {
            this.label = label;
            this.min = min;
            this.max = max;
            this.starMin = starMin;
            this.starMax = starMax;
            this.names = names;
            this.firstNameValue = firstNameValue;
        }

        int size() {
            return starMax - starMin + 1;
        }
    }

    private final String expression;
    private final long minutes;
    private final long hours;
    private final long daysOfMonth;
    private final long months;
    private final long daysOfWeek;
    private final boolean domStar;
    private final boolean dowStar;

    private CronExpression(String expression, long[] bits, boolean domStar, boolean dowStar) {
        this.expression = expression;
        this.minutes = bits[0];
        this.hours = bits[1];
        this.daysOfMonth = bits[2];
        this.months = bits[3];
        this.daysOfWeek = bits[4];
        this.domStar = domStar;
        this.dowStar = dowStar;
    }

    /**
     * Parses an expression; throws {@link InvalidCronException} naming the field and the value on any error.
     *
     * @param text 5 whitespace-separated fields, or a macro
     */
    public static CronExpression parse(String text) {
        if (text == null || text.isBlank()) {
            throw new InvalidCronException("cron is empty: give 5 fields (minute hour day-of-month month day-of-week)"
                    + " or a macro (@hourly, @daily, @weekly, @monthly, @yearly)");
        }
        String expression = text.strip();
        String fieldsText = expression;
        if (expression.startsWith("@")) {
            fieldsText = MACROS.get(expression.toLowerCase(Locale.ROOT));
            if (fieldsText == null) {
                throw new InvalidCronException("unknown macro '" + expression
                        + "': use @hourly, @daily, @midnight, @weekly, @monthly, @yearly or @annually"
                        + (expression.equalsIgnoreCase("@reboot") ? " (@reboot has no meaning for a service)" : ""));
            }
        }
        String[] fields = WHITESPACE.split(fieldsText);
        if (fields.length != 5) {
            throw new InvalidCronException("cron needs 5 fields (minute hour day-of-month month day-of-week), got "
                    + fields.length + " in '" + expression + "'"
                    + (fields.length == 6 ? " (seconds are not supported)" : ""));
        }
        Field[] specs = Field.values();
        long[] bits = new long[5];
        for (int i = 0; i < 5; i++) {
            bits[i] = parseField(fields[i], specs[i]);
        }
        return new CronExpression(expression, bits, fields[2].startsWith("*"), fields[4].startsWith("*"));
    }

    /** Returns null if valid, else the error message (what {@link #parse} would throw). */
    public static String validate(String text) {
        try {
            parse(text);
            return null;
        } catch (InvalidCronException e) {
            return e.getMessage();
        }
    }

    private static long parseField(String field, Field spec) {
        long bits = 0;
        // split with -1 keeps trailing empty elements, so "1," is reported instead of silently accepted
        for (String element : COMMA.split(field, -1)) {
            bits |= parseElement(element, field, spec);
        }
        return bits;
    }

    private static long parseElement(String element, String field, Field spec) {
        if (element.isEmpty()) {
            throw new InvalidCronException(spec.label + ": empty list element in '" + field + "'");
        }
        String base = element;
        int step = 1;
        boolean stepped = false;
        int slash = element.indexOf('/');
        if (slash >= 0) {
            base = element.substring(0, slash);
            step = parseStep(element.substring(slash + 1), element, spec);
            stepped = true;
        }
        int lo;
        int hi;
        if (base.equals("*")) {
            lo = spec.starMin;
            hi = spec.starMax;
        } else {
            int dash = base.indexOf('-', 1);
            if (dash > 0) {
                lo = parseValue(base.substring(0, dash), spec);
                hi = parseValue(base.substring(dash + 1), spec);
                if (lo > hi) {
                    throw new InvalidCronException(spec.label + ": range " + base + " is backwards (start after end)");
                }
            } else {
                if (stepped) {
                    throw new InvalidCronException(spec.label + ": '" + element + "' has a step without a range; write "
                            + base + "-" + spec.max + "/" + step + " or */" + step);
                }
                lo = parseValue(base, spec);
                hi = lo;
            }
        }
        long bits = 0;
        for (int v = lo; v <= hi; v += step) {
            // day-of-week 7 is Sunday, stored as 0
            bits |= 1L << (spec == Field.DAY_OF_WEEK && v == 7 ? 0 : v);
        }
        return bits;
    }

    private static int parseStep(String text, String element, Field spec) {
        if (text.isEmpty() || !text.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw new InvalidCronException(spec.label + ": step '" + text + "' in '" + element + "' is not a number");
        }
        int n = text.length() > 4 ? Integer.MAX_VALUE : Integer.parseInt(text);
        if (n < 1 || n > spec.size()) {
            throw new InvalidCronException(spec.label + ": step " + text + " is outside 1-" + spec.size());
        }
        return n;
    }

    private static int parseValue(String text, Field spec) {
        if (!text.isEmpty() && text.chars().allMatch(c -> c >= '0' && c <= '9')) {
            int v = text.length() > 4 ? Integer.MAX_VALUE : Integer.parseInt(text);
            if (v < spec.min || v > spec.max) {
                throw new InvalidCronException(spec.label + ": " + text + " is outside " + spec.min + "-" + spec.max);
            }
            return v;
        }
        if (spec.names != null) {
            int i = spec.names.indexOf(text.toUpperCase(Locale.ROOT));
            if (i >= 0) {
                return i + spec.firstNameValue;
            }
        }
        if (text.equals("?") || text.contains("L") || text.contains("W") || text.contains("#")) {
            throw new InvalidCronException(spec.label + ": '" + text + "' is Quartz syntax, not supported by 5-field cron");
        }
        String names = spec.names == null ? "" : " or a name (" + spec.names.get(0) + "-" + spec.names.get(spec.names.size() - 1) + ")";
        throw new InvalidCronException(spec.label + ": '" + text + "' is not a number" + names);
    }

    /** The expression as given (trimmed), e.g. {@code *}{@code /2 * * * *} or {@code @daily}. */
    public String expression() {
        return expression;
    }

    @Override
    public String toString() {
        return expression;
    }

    /** Whether this expression matches the wall-clock minute {@code t} (seconds ignored). */
    public boolean matches(LocalDateTime t) {
        return bit(minutes, t.getMinute()) && bit(hours, t.getHour()) && bit(months, t.getMonthValue())
                && dayMatches(t.toLocalDate());
    }

    private boolean dayMatches(LocalDate d) {
        boolean dom = bit(daysOfMonth, d.getDayOfMonth());
        boolean dow = bit(daysOfWeek, dayOfWeek(d.getDayOfWeek()));
        return domStar || dowStar ? dom && dow : dom || dow;
    }

    /** Cron numbering: Sunday 0 … Saturday 6. */
    private static int dayOfWeek(DayOfWeek d) {
        return d.getValue() % 7;
    }

    private static boolean bit(long bits, int i) {
        return (bits & (1L << i)) != 0;
    }

    /** The lowest set bit at or above {@code from}, or -1. */
    private static int nextBit(long bits, int from) {
        if (from >= 64) {
            return -1;
        }
        long masked = bits & (-1L << from);
        return masked == 0 ? -1 : Long.numberOfTrailingZeros(masked);
    }

    /**
     * The first wall-clock minute strictly after {@code after} that matches, or empty if none within 50 years
     * (e.g. {@code 0 0 30 2 *}).
     */
    public Optional<LocalDateTime> nextMatch(LocalDateTime after) {
        LocalDateTime start = after.truncatedTo(ChronoUnit.MINUTES).plusMinutes(1);
        LocalDate date = start.toLocalDate();
        int fromHour = start.getHour();
        int fromMinute = start.getMinute();
        LocalDate limit = date.plusYears(SEARCH_HORIZON_YEARS);
        while (!date.isAfter(limit)) {
            if (!bit(months, date.getMonthValue())) {
                date = date.withDayOfMonth(1).plusMonths(1);
                fromHour = 0;
                fromMinute = 0;
                continue;
            }
            if (dayMatches(date)) {
                for (int h = nextBit(hours, fromHour); h >= 0; h = nextBit(hours, h + 1)) {
                    int m = nextBit(minutes, h == fromHour ? fromMinute : 0);
                    if (m >= 0) {
                        return Optional.of(date.atTime(h, m));
                    }
                }
            }
            date = date.plusDays(1);
            fromHour = 0;
            fromMinute = 0;
        }
        return Optional.empty();
    }

    /**
     * The next instant strictly after {@code after} at which a job with this expression fires in {@code zone}.
     *
     * <p>DST: a matching minute inside a skipped hour (spring forward) fires at the first valid minute after the gap;
     * several such minutes collapse into that one firing. A repeated hour (fall back) fires once: each wall-clock
     * minute fires at its first occurrence only.
     */
    public Optional<Instant> nextFire(Instant after, ZoneId zone) {
        var rules = zone.getRules();
        LocalDateTime cursor = LocalDateTime.ofInstant(after, zone);
        // bounded: an overlap can skip at most 60 candidates; a gap maps a run of candidates to one instant
        for (int guard = 0; guard < 10_000; guard++) {
            Optional<LocalDateTime> candidate = nextMatch(cursor);
            if (candidate.isEmpty()) {
                return Optional.empty();
            }
            LocalDateTime local = candidate.get();
            List<ZoneOffset> offsets = rules.getValidOffsets(local);
            Instant instant;
            if (offsets.isEmpty()) {
                ZoneOffsetTransition gap = rules.getTransition(local);
                instant = gap.getInstant();
            } else {
                // the first valid offset is the one before a fall-back transition: the earlier instant
                instant = local.toInstant(offsets.get(0));
            }
            if (instant.isAfter(after)) {
                return Optional.of(instant);
            }
            cursor = local;
        }
        return Optional.empty();
    }

    /**
     * The shortest gap between consecutive firings among the first {@code firings} after {@code from} (in UTC wall
     * time, so DST does not distort it), stopping early once a gap below {@code stopBelow} is seen. Empty if the
     * expression fires fewer than twice.
     */
    public Optional<Duration> shortestGap(LocalDateTime from, int firings, Duration stopBelow) {
        Optional<LocalDateTime> previous = nextMatch(from);
        Duration shortest = null;
        for (int i = 1; i < firings && previous.isPresent(); i++) {
            Optional<LocalDateTime> next = nextMatch(previous.get());
            if (next.isEmpty()) {
                break;
            }
            Duration gap = Duration.between(previous.get(), next.get());
            if (shortest == null || gap.compareTo(shortest) < 0) {
                shortest = gap;
                if (shortest.compareTo(stopBelow) < 0) {
                    break;
                }
            }
            previous = next;
        }
        return Optional.ofNullable(shortest);
    }
}
