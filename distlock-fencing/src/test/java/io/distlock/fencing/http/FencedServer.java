package io.distlock.fencing.http;

import io.distlock.fencing.FencingContext;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.catalina.Context;
import org.apache.catalina.LifecycleException;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.startup.Tomcat;
import org.apache.tomcat.util.descriptor.web.FilterDef;
import org.apache.tomcat.util.descriptor.web.FilterMap;

/**
 * A real Tomcat on a free port with {@link FencingTokenFilter} on {@code /stock/*}; its handler records each request it
 * carried out with the token current in it (the filter's), and answers {@code done <token>}.
 */
final class FencedServer implements AutoCloseable {
    /** A request the handler carried out: its path and the fencing token current while it ran. */
    record Done(String path, long token) {}

    private final Tomcat tomcat;
    private final Connector connector;
    final List<Done> done = new CopyOnWriteArrayList<>();

    FencedServer(FencingTokenFilter filter) throws IOException, LifecycleException {
        Path base = Files.createTempDirectory("fenced-tomcat");
        tomcat = new Tomcat();
        tomcat.setBaseDir(base.toString());
        connector = new Connector();
        connector.setPort(0);
        tomcat.setConnector(connector);
        Context context = tomcat.addContext("", base.toString());
        Tomcat.addServlet(context, "stock", new HttpServlet() {
            private static final long serialVersionUID = 1L;

            @Override
            protected void service(HttpServletRequest request, HttpServletResponse response) throws IOException {
                long token = FencingContext.findCurrentToken().orElse(0);
                done.add(new Done(request.getRequestURI(), token));
                response.setContentType("text/plain");
                response.getWriter().print("done " + token);
            }
        });
        context.addServletMappingDecoded("/*", "stock");
        FilterDef def = new FilterDef();
        def.setFilterName("fencing");
        def.setFilter(filter);
        context.addFilterDef(def);
        FilterMap map = new FilterMap();
        map.setFilterName("fencing");
        map.addURLPattern("/stock/*");
        context.addFilterMap(map);
        tomcat.start();
    }

    String url(String path) {
        return "http://127.0.0.1:" + connector.getLocalPort() + path;
    }

    @Override
    public void close() throws LifecycleException {
        tomcat.stop();
        tomcat.destroy();
    }
}
