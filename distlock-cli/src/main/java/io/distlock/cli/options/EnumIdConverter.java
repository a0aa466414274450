package io.distlock.cli.options;

import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import picocli.CommandLine.ITypeConverter;

/**
 * Reads an enum from the name it has on the command line (its id, e.g. {@code naive-set-nx}), and
 * names the choices when the value is none of them. picocli instantiates converters by class, so each
 * enum option has a small subclass with a no-argument constructor, e.g.
 * {@code @Option(names = "--lock", converter = LockConverter.class)}.
 *
 * @param <E> the enum
 */
public abstract class EnumIdConverter<E extends Enum<E>> implements ITypeConverter<E> {
    private final List<E> values;
    private final Function<E, String> id;
    private final String noun;

    /**
     * Creates a converter for one enum.
     *
     * @param type the enum
     * @param id the command-line name of a constant
     * @param noun what a value is, for the error message ("lock", "strategy")
     */
    protected EnumIdConverter(Class<E> type, Function<E, String> id, String noun) {
        this.values = List.of(type.getEnumConstants());
        this.id = id;
        this.noun = noun;
    }

    /**
     * Returns the constant with this name (case and surrounding blanks ignored).
     *
     * @throws OptionValueException naming the choices
     */
    @Override
    public final E convert(String value) {
        String wanted = value.trim().toLowerCase(Locale.ROOT);
        for (E candidate : values) {
            if (id.apply(candidate).equals(wanted)) {
                return candidate;
            }
        }
        throw new OptionValueException("must be " + choices() + " (unknown " + noun + " '" + value + "')");
    }

    /** Returns the command-line names of every constant, comma-separated. */
    public final String ids() {
        return String.join(", ", values.stream().map(id).toList());
    }

    private String choices() {
        List<String> ids = values.stream().map(id).toList();
        if (ids.size() == 2) {
            return ids.get(0) + " or " + ids.get(1);
        }
        return "one of " + String.join(", ", ids);
    }
}
