package io.distlock.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.cli.options.DurationConverter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/** One style for every command: described options, paragraphs instead of hard line breaks, one-line errors with exit code 2. */
class CommandLineStyleTest {
    private static List<CommandSpec> allCommands(CommandSpec spec) {
        List<CommandSpec> all = new ArrayList<>(List.of(spec));
        spec.subcommands().values().forEach(sub -> all.addAll(allCommands(sub.getCommandSpec())));
        return all;
    }

    @Test
    void everyOptionIsDescribedAndEveryDescriptionIsWholeParagraphs() {
        for (CommandSpec command : allCommands(DistlockCommand.newCommandLine().getCommandSpec())) {
            for (OptionSpec option : command.options()) {
                if (!option.hidden()) {
                    assertThat(String.join(" ", option.description())).as("%s %s", command.qualifiedName(), option.longestName()).isNotBlank();
                }
            }
            for (String paragraph : command.usageMessage().description()) {
                assertThat(paragraph.isEmpty() || paragraph.replaceAll("%n$", "").matches("(?s).*[.:)]")).as("%s: a paragraph, not a hard-broken line: %s",
                        command.qualifiedName(), paragraph).isTrue();
            }
        }
    }

    @Test
    void everyCommandStartsWithAShortSentenceAndEveryOptionArgumentHasALabel() {
        for (CommandSpec command : allCommands(DistlockCommand.newCommandLine().getCommandSpec())) {
            String first = command.usageMessage().description().length == 0 ? "" : command.usageMessage().description()[0];
            assertThat(first.length()).as("%s: the line shown in the command list: %s", command.qualifiedName(), first).isBetween(10, 90);
            for (OptionSpec option : command.options()) {
                if (option.arity().max() > 0) {
                    assertThat(option.paramLabel()).as("%s %s", command.qualifiedName(), option.longestName()).doesNotStartWith("<");
                }
            }
        }
    }

    @Test
    void everyDurationOptionReadsMillisecondsSecondsAndMinutes() {
        for (CommandSpec command : allCommands(DistlockCommand.newCommandLine().getCommandSpec())) {
            for (OptionSpec option : command.options()) {
                if (!option.hidden() && option.type() != Duration.class) {
                    assertThat(option.longestName()).as("%s: a duration option should take a DURATION", command.qualifiedName())
                            .doesNotEndWith("-ms").doesNotEndWith("-seconds").doesNotEndWith("-millis");
                }
            }
        }
        DurationConverter converter = new DurationConverter();
        assertThat(List.of(converter.convert("500ms"), converter.convert("5s"), converter.convert("2m")))
                .containsExactly(Duration.ofMillis(500), Duration.ofSeconds(5), Duration.ofMinutes(2));
    }

    @Test
    void bareDistlockAndBareLocksPrintTheUsageAndExitWithTwo() {
        CliRun bare = CliRun.of();
        assertThat(bare.exit()).isEqualTo(2);
        assertThat(bare.err()).contains("name a command: demo, bench, check, locks, backends", "Usage: distlock", "Exit codes:");

        CliRun locks = CliRun.of("locks");
        assertThat(locks.exit()).isEqualTo(2);
        assertThat(locks.err()).contains("name a subcommand: list, show NAME or unlock NAME", "Usage: distlock locks");
    }

    @Test
    void aMistypedCommandOrOptionGetsTheNearestOne() {
        CliRun command = CliRun.of("demoo");
        assertThat(command.exit()).isEqualTo(2);
        assertThat(command.err()).startsWith("distlock: unknown command or argument 'demoo'; did you mean 'demo'?");

        CliRun option = CliRun.of("check", "--bakend", "redis");
        assertThat(option.exit()).isEqualTo(2);
        assertThat(option.err()).startsWith("distlock: unknown option '--bakend'; did you mean '--backend'?");
    }

    @Test
    void aBadOrUnreachableTargetIsOneLineWithExitTwoInEveryCommand() {
        for (List<String> command : List.of(List.of("bench"), List.of("demo"), List.of("locks", "list"))) {
            CliRun garbled = run(command, "--target", "notauri");
            assertThat(garbled.exit()).as("%s", command).isEqualTo(2);
            assertThat(garbled.err()).as("%s", command).startsWith("distlock: --target: ").contains("notauri", "redis:").doesNotContain("\tat ");

            CliRun unreachable = run(command, "--target", "redis://user:secret@127.0.0.1:1");
            assertThat(unreachable.exit()).as("%s", command).isEqualTo(2);
            assertThat(unreachable.err()).as("%s", command).startsWith("distlock: --target: ").contains("cannot connect", "127.0.0.1:1")
                    .doesNotContain("secret", "\tat ");
        }
        CliRun garbledStore = CliRun.of("demo", "--store", "notauri");
        assertThat(garbledStore.exit()).isEqualTo(2);
        assertThat(garbledStore.err()).startsWith("distlock: --store: cannot parse 'notauri'").doesNotContain("\tat ");
    }

    private static CliRun run(List<String> command, String... more) {
        List<String> args = new java.util.ArrayList<>(command);
        args.addAll(List.of(more));
        return CliRun.of(args.toArray(String[]::new));
    }

    @Test
    void aMissingReplayFileIsNamed() {
        CliRun replay = CliRun.of("check", "--replay", "target/no-such-history.txt");

        assertThat(replay.exit()).isEqualTo(2);
        assertThat(replay.err()).contains("--replay: no such file: ").contains("no-such-history.txt");
    }

    @Test
    void aFailureWhileRunningIsOneLineWithItsCauseAndExitCodeFour() {
        RuntimeException error = new IllegalStateException("the store went away", new java.io.IOException("Connection reset"));

        assertThat(DistlockCommand.describe(error))
                .isEqualTo("IllegalStateException: the store went away (caused by IOException: Connection reset)");
        assertThat(DistlockCommand.FAILED).isEqualTo(4);
    }
}
