package dev.cohort.scheduler.jobs;

/** A cron expression that cannot be parsed; the message names the field and the value ({@code day-of-week: 8 is outside 0-7}). */
public class InvalidCronException extends IllegalArgumentException {

    public InvalidCronException(String message) {
        super(message);
    }
}
