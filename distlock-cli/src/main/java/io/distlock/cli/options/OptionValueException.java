package io.distlock.cli.options;

import picocli.CommandLine.TypeConversionException;

/**
 * A value our converters cannot read. Its message reads after the option's name ("must look like 500ms,
 * 30s or 2m, was 'soon'"), and the command line prints it that way, on one line.
 */
public final class OptionValueException extends TypeConversionException {
    private static final long serialVersionUID = 1L;

    /** Creates the exception with a message that completes "--option ...". */
    public OptionValueException(String message) {
        super(message);
    }
}
