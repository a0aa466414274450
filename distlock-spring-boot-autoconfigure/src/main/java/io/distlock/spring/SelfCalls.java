package io.distlock.spring;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.asm.ClassReader;
import org.springframework.asm.ClassVisitor;
import org.springframework.asm.MethodVisitor;
import org.springframework.asm.Opcodes;
import org.springframework.asm.Type;

/**
 * Finds where a class calls its own {@code @WithLock} methods on {@code this}, in its bytecode: such a call does not go
 * through the bean's proxy, so the method runs without the lock.
 *
 * <p>A call counts when the receiver is loaded by {@code aload 0} right before the arguments, each of them one plain
 * load or constant ({@code this.report()}, {@code this.buy(sku, 1)}, or a call without {@code this.}); a call whose
 * receiver is another reference (the self-proxy pattern {@code self.report()}, another bean) never counts, and one
 * whose arguments are computed in place is not recognised: no false alarm, some calls missed. Classes whose bytecode
 * cannot be read (an ahead-of-time image) are skipped.
 */
final class SelfCalls {
    /** A call of {@code callee} on {@code this} inside {@code caller}, both as {@code Class.method}. */
    record SelfCall(String caller, String callee) {}

    private SelfCalls() {
    }

    /** Returns the calls on {@code this} of {@code annotated} methods found in {@code type} and its superclasses. */
    static List<SelfCall> find(Class<?> type, List<Method> annotated) {
        Map<String, String> targets = new HashMap<>(); // name and descriptor -> Class.method, as the caller is named
        for (Method method : annotated) {
            targets.put(method.getName() + Type.getMethodDescriptor(method), method.getDeclaringClass().getSimpleName() + "." + method.getName());
        }
        Set<String> owners = new HashSet<>();
        for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
            owners.add(Type.getInternalName(c));
        }
        Set<SelfCall> found = new LinkedHashSet<>();
        for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
            scan(c, targets, owners, found);
        }
        return new ArrayList<>(found);
    }

    private static void scan(Class<?> type, Map<String, String> targets, Set<String> owners, Set<SelfCall> found) {
        ClassLoader loader = type.getClassLoader();
        if (loader == null) {
            return;
        }
        byte[] bytes;
        try (InputStream in = loader.getResourceAsStream(type.getName().replace('.', '/') + ".class")) {
            if (in == null) {
                return;
            }
            bytes = in.readAllBytes();
        } catch (IOException e) {
            return;
        }
        new ClassReader(bytes).accept(new ClassVisitor(Opcodes.ASM9) {
            @Override
            public @Nullable MethodVisitor visitMethod(int access, String name, String descriptor, @Nullable String signature,
                    String @Nullable [] exceptions) {
                if ((access & Opcodes.ACC_STATIC) != 0) {
                    return null; // no this
                }
                return new Calls(type.getSimpleName() + "." + name, targets, owners, found);
            }
        }, ClassReader.SKIP_DEBUG | ClassReader.SKIP_FRAMES);
    }

    /** The instructions of one method, reduced to what a receiver check needs. */
    private static final class Calls extends MethodVisitor {
        private static final int OTHER = 0;
        private static final int THIS = 1;
        private static final int PUSH = 2;

        private final String caller;
        private final Map<String, String> targets;
        private final Set<String> owners;
        private final Set<SelfCall> found;
        private final List<Integer> recent = new ArrayList<>();

        Calls(String caller, Map<String, String> targets, Set<String> owners, Set<SelfCall> found) {
            super(Opcodes.ASM9);
            this.caller = caller;
            this.targets = targets;
            this.owners = owners;
            this.found = found;
        }

        private void add(int kind) {
            recent.add(kind);
        }

        @Override
        public void visitVarInsn(int opcode, int varIndex) {
            boolean load = opcode >= Opcodes.ILOAD && opcode <= Opcodes.ALOAD;
            add(opcode == Opcodes.ALOAD && varIndex == 0 ? THIS : load ? PUSH : OTHER);
        }

        @Override
        public void visitInsn(int opcode) {
            add(opcode >= Opcodes.ACONST_NULL && opcode <= Opcodes.DCONST_1 ? PUSH : OTHER);
        }

        @Override
        public void visitIntInsn(int opcode, int operand) {
            add(opcode == Opcodes.BIPUSH || opcode == Opcodes.SIPUSH ? PUSH : OTHER);
        }

        @Override
        public void visitLdcInsn(Object value) {
            add(PUSH);
        }

        @Override
        public void visitFieldInsn(int opcode, String owner, String name, String descriptor) {
            add(OTHER);
        }

        @Override
        public void visitTypeInsn(int opcode, String type) {
            add(OTHER);
        }

        @Override
        public void visitJumpInsn(int opcode, org.springframework.asm.Label label) {
            add(OTHER);
        }

        @Override
        public void visitIincInsn(int varIndex, int increment) {
            add(OTHER);
        }

        @Override
        public void visitInvokeDynamicInsn(String name, String descriptor, org.springframework.asm.Handle bootstrap, Object... arguments) {
            add(OTHER);
        }

        @Override
        public void visitTableSwitchInsn(int min, int max, org.springframework.asm.Label dflt, org.springframework.asm.Label... labels) {
            add(OTHER);
        }

        @Override
        public void visitLookupSwitchInsn(org.springframework.asm.Label dflt, int[] keys, org.springframework.asm.Label[] labels) {
            add(OTHER);
        }

        @Override
        public void visitMultiANewArrayInsn(String descriptor, int numDimensions) {
            add(OTHER);
        }

        @Override
        public void visitLabel(org.springframework.asm.Label label) {
            add(OTHER); // a jump may land here: what was pushed before is not known to be on the stack
        }

        @Override
        public void visitMethodInsn(int opcode, String owner, String name, String descriptor, boolean isInterface) {
            String callee = targets.get(name + descriptor);
            if ((opcode == Opcodes.INVOKEVIRTUAL || opcode == Opcodes.INVOKESPECIAL) && owners.contains(owner) && callee != null
                    && receiverIsThis(Type.getArgumentTypes(descriptor).length)) {
                found.add(new SelfCall(caller, callee));
            }
            add(OTHER);
        }

        /** Whether the last {@code arguments} instructions are plain pushes and the one before them loads {@code this}. */
        private boolean receiverIsThis(int arguments) {
            int receiver = recent.size() - arguments - 1;
            if (receiver < 0 || recent.get(receiver) != THIS) {
                return false;
            }
            for (int i = receiver + 1; i < recent.size(); i++) {
                if (recent.get(i) == OTHER) {
                    return false;
                }
            }
            return true;
        }
    }
}
