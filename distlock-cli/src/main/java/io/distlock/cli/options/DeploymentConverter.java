package io.distlock.cli.options;

import io.distlock.servers.deployment.DeploymentType;
import io.distlock.servers.deployment.Deployments;
import picocli.CommandLine.ITypeConverter;

/** Reads {@code --backend ID}: a deployment of a {@code -testing} module on the class path, one error naming the known ids otherwise. */
public final class DeploymentConverter implements ITypeConverter<DeploymentType> {
    /** For picocli. */
    public DeploymentConverter() {}

    @Override
    public DeploymentType convert(String value) {
        return Deployments.find(value).orElseThrow(() -> new OptionValueException("must be one of " + Deployments.ids() + ", was '" + value + "'"));
    }
}
