package io.distlock.redis;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Enumeration;
import java.util.List;
import java.util.Properties;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Checks, before the first Lettuce or netty class is used, that the netty on the classpath can carry
 * the Lettuce on it: every netty module of one minor version, and netty 4.2 for Lettuce 7. A build that
 * mixes them (say the ZooKeeper client's netty 4.1 next to Lettuce's 4.2) otherwise fails at the first
 * lock with a linkage error such as {@code NoClassDefFoundError: io/netty/channel/socket/SocketProtocolFamily}.
 *
 * <p>Reads only resources: each netty jar carries {@code META-INF/io.netty.versions.properties} naming
 * its module and version, and Lettuce's jar its Maven {@code pom.properties}. A classpath where these
 * are missing (a shaded jar, say) is not judged.
 */
final class NettyClasspath {
    /*
     * Deliberately free of Lettuce and netty types, so that loading and verifying this class cannot
     * itself fail on the classpath it is checking.
     */
    static final String NETTY_VERSIONS = "META-INF/io.netty.versions.properties";
    static final String LETTUCE_POM = "META-INF/maven/io.lettuce/lettuce-core/pom.properties";

    private static final Pattern VERSION_KEY = Pattern.compile("(netty[\\w.-]*)\\.version");
    private static final Pattern MAJOR_MINOR = Pattern.compile("(\\d+)\\.(\\d+)\\..*");
    private static final Pattern MINOR_KEY = Pattern.compile("(\\d+)\\.(\\d+)");

    /** A netty module found on the classpath: name, version, and the jar it came from. */
    record Module(String name, String version, String jar) {
        String minor() {
            return majorMinor(version);
        }

        @Override
        public String toString() {
            return name + " " + version + " (" + jar + ")";
        }
    }

    private static volatile boolean passed;

    private NettyClasspath() {}

    /**
     * Checks the classpath of the class loader that loaded distlock-redis (once it has passed, at once).
     *
     * @throws IllegalStateException naming the conflicting jars and the fix, if netty cannot carry Lettuce
     */
    static void check() {
        if (passed) {
            return;
        }
        ClassLoader loader = NettyClasspath.class.getClassLoader();
        String problem = problem(nettyModules(loader), lettuceVersion(loader));
        if (problem != null) {
            throw new IllegalStateException(problem);
        }
        passed = true;
    }

    /** Returns what is wrong with these netty modules under this Lettuce version, or null if nothing is. */
    static @Nullable String problem(List<Module> netty, @Nullable String lettuceVersion) {
        TreeMap<String, List<Module>> byMinor = new TreeMap<>(Comparator.comparingInt(NettyClasspath::minorOrder));
        for (Module module : netty) {
            byMinor.computeIfAbsent(module.minor(), minor -> new ArrayList<>()).add(module);
        }
        if (byMinor.size() > 1) {
            String newest = newestVersion(byMinor.lastEntry().getValue());
            StringBuilder text = new StringBuilder("distlock-redis: the netty modules on the classpath are of different versions, and Lettuce ")
                    .append(lettuceVersion == null ? "" : lettuceVersion + " ")
                    .append("needs them all at one version:");
            byMinor.forEach((minor, modules) -> modules.forEach(module -> text.append("\n    ").append(module)));
            text.append("\nFix: line netty up in your build's <dependencyManagement>: import io.netty:netty-bom:").append(newest)
                    .append(" (or io.distlock:distlock-bom, which also sets the Lettuce version distlock was tested with),")
                    .append(" or, in Spring Boot, let its dependency management choose. 'mvn dependency:tree -Dincludes=io.netty'")
                    .append(" shows which dependency brings each version.");
            return text.toString();
        }
        if (lettuceVersion != null && major(lettuceVersion) >= 7 && !byMinor.isEmpty() && minorOrder(byMinor.firstKey()) < minorOrder("4.2")) {
            return "distlock-redis: Lettuce " + lettuceVersion + " needs netty 4.2, but the classpath has netty " + byMinor.firstKey()
                    + ":\n    " + String.join("\n    ", byMinor.firstEntry().getValue().stream().map(Module::toString).toList())
                    + "\nFix: import io.netty:netty-bom (4.2.x) in your build's <dependencyManagement>, or use Lettuce 6.8, which runs on"
                    + " netty 4.1 and 4.2 (io.distlock:distlock-bom sets the versions distlock was tested with).";
        }
        return null;
    }

    /** Lists the netty modules (4.x only: tcnative and incubator modules have their own numbering). */
    static List<Module> nettyModules(ClassLoader loader) {
        List<Module> modules = new ArrayList<>();
        TreeSet<String> seen = new TreeSet<>();
        for (URL url : resources(loader, NETTY_VERSIONS)) {
            Properties properties = load(url);
            for (String key : properties.stringPropertyNames()) {
                Matcher matcher = VERSION_KEY.matcher(key);
                String version = properties.getProperty(key).trim();
                if (matcher.matches() && version.startsWith("4.") && seen.add(matcher.group(1) + " " + version)) {
                    modules.add(new Module(matcher.group(1), version, jarOf(url)));
                }
            }
        }
        return modules;
    }

    private static @Nullable String lettuceVersion(ClassLoader loader) {
        List<URL> poms = resources(loader, LETTUCE_POM);
        return poms.isEmpty() ? null : load(poms.get(0)).getProperty("version");
    }

    private static List<URL> resources(ClassLoader loader, String name) {
        List<URL> urls = new ArrayList<>();
        try {
            Enumeration<URL> found = loader == null ? ClassLoader.getSystemResources(name) : loader.getResources(name);
            while (found.hasMoreElements()) {
                urls.add(found.nextElement());
            }
        } catch (IOException e) {
            // unreadable classpath: not ours to judge; Lettuce will say what is wrong
        }
        return urls;
    }

    private static Properties load(URL url) {
        Properties properties = new Properties();
        try (InputStream in = url.openStream()) {
            properties.load(in);
        } catch (IOException e) {
            // an unreadable entry counts as absent
        }
        return properties;
    }

    /** The jar's file name ({@code netty-common-4.2.13.Final.jar}), or the URL when it is not a jar. */
    static String jarOf(URL url) {
        String text = url.toString();
        int bang = text.indexOf("!/");
        if (bang < 0) {
            return text;
        }
        String jar = text.substring(0, bang);
        return jar.substring(jar.lastIndexOf('/') + 1);
    }

    private static String newestVersion(List<Module> modules) {
        return modules.stream().map(Module::version).max(NettyClasspath::compareVersions).orElseThrow();
    }

    private static int compareVersions(String a, String b) {
        String[] x = a.split("\\.");
        String[] y = b.split("\\.");
        for (int i = 0; i < Math.min(x.length, y.length); i++) {
            int c = (isNumber(x[i]) && isNumber(y[i])) ? Integer.compare(Integer.parseInt(x[i]), Integer.parseInt(y[i])) : x[i].compareTo(y[i]);
            if (c != 0) {
                return c;
            }
        }
        return Integer.compare(x.length, y.length);
    }

    private static boolean isNumber(String part) {
        return !part.isEmpty() && part.length() < 9 && part.chars().allMatch(Character::isDigit);
    }

    private static String majorMinor(String version) {
        Matcher matcher = MAJOR_MINOR.matcher(version);
        return matcher.matches() ? matcher.group(1) + "." + matcher.group(2) : version;
    }

    private static int minorOrder(String majorMinor) {
        Matcher matcher = MINOR_KEY.matcher(majorMinor);
        return matcher.matches() ? Integer.parseInt(matcher.group(1)) * 1000 + Integer.parseInt(matcher.group(2)) : 0;
    }

    private static int major(String version) {
        Matcher matcher = MAJOR_MINOR.matcher(version);
        return matcher.matches() ? Integer.parseInt(matcher.group(1)) : 0;
    }
}
