// The Pyodide worker thread behind PythonSandbox (sandbox.ts). Plain JS so the build copies it to dist/
// as is and no TypeScript loader is needed inside the worker.
//
// Layers, from the inside out (sandbox.ts holds the outermost, the wall clock and the abort):
// 1. Python: an import blocker installed before any user code (js, pyodide*, ctypes, sockets,
//    subprocess, gc, …), the Pyodide modules dropped from sys.modules, user code run by exec() in a
//    fresh namespace from a runner called straight from JS (no Pyodide frames above it).
// 2. JavaScript: the `js` module is an empty object instead of globalThis; after start-up the
//    worker loses every way to reach the host from a JS value Python might still get hold of: no
//    code from strings (eval and the Function constructors throw), no process/fetch/WebSocket
//    globals, no NODEFS (host files), no sockets (Emscripten's SOCKFS would open WebSockets with
//    the `ws` package), and Pyodide's file-reading and mounting API removed.
// 3. Memory: WebAssembly.Memory.prototype.grow refuses to grow the interpreter's linear memory past
//    the call's cap, so Python's malloc fails and the code gets a real MemoryError.
// Output goes into SharedArrayBuffers the parent owns, so it survives the worker being terminated.
import { fileURLToPath } from 'node:url';
import { parentPort } from 'node:worker_threads';

// Nothing the runtime logs may reach the host's streams (a --json stdout must stay one object).
for (const level of ['log', 'info', 'warn', 'error', 'debug', 'trace', 'dir']) console[level] = () => {};

const MiB = 1024 * 1024;
// Start-up itself needs room; calls set their own cap.
let memoryCap = 1024 * MiB;
const originalGrow = WebAssembly.Memory.prototype.grow;
WebAssembly.Memory.prototype.grow = function grow(delta) {
  const after = this.buffer.byteLength + Number(delta) * 65536;
  if (after > memoryCap) throw new RangeError(`the Python heap may not grow past ${Math.round(memoryCap / MiB)} MiB`);
  return originalGrow.call(this, delta);
};

/** One output stream: bytes copied into the parent's shared buffer up to its size, the rest counted as dropped. */
class Capture {
  constructor() {
    this.reset(undefined, 0, 0);
  }
  reset(sab, offset, size) {
    this.header = sab ? new Int32Array(sab, 0, 4) : undefined;
    this.data = sab ? new Uint8Array(sab, offset, size) : undefined;
    this.size = size;
    this.used = 0;
  }
  write(bytes, slot) {
    if (this.data) {
      const room = Math.min(bytes.length, this.size - this.used);
      if (room > 0) {
        this.data.set(bytes.subarray(0, room), this.used);
        this.used += room;
        Atomics.store(this.header, slot, this.used);
      }
      if (room < bytes.length) Atomics.store(this.header, slot + 2, 1);
    }
    return bytes.length;
  }
}
const stdout = new Capture();
const stderr = new Capture();

// Modules user code may not import. Besides the bridges to JavaScript: ctypes (raw memory and calls
// into the runtime), sockets and the network clients on top of them, process spawning, and gc (its
// object walks would hand out the bridge objects this setup hides).
// biome-ignore lint/complexity/noUselessStringRaw: Python source; raw keeps any backslash added later literal
const SETUP = String.raw`
import sys, builtins, traceback

_BLOCKED = frozenset({
    'js', 'pyodide_js', 'pyodide', '_pyodide', '_pyodide_core', 'micropip',
    'ctypes', '_ctypes', 'cffi', 'gc',
    'socket', '_socket', 'ssl', '_ssl', 'select', 'selectors', 'asyncio', '_asyncio',
    'urllib.request', 'http.client', 'http.server', 'socketserver', 'ftplib', 'poplib', 'imaplib',
    'smtplib', 'xmlrpc.client', 'xmlrpc.server', 'webbrowser', 'wsgiref.simple_server',
    'subprocess', '_posixsubprocess', 'multiprocessing', '_multiprocessing', 'concurrent.futures.process',
    'pty',
})

def _blocked(name):
    return name in _BLOCKED or any(name.startswith(b + '.') for b in _BLOCKED)

class _SandboxBlocker:
    """First on sys.meta_path: refuses the blocked modules before any other finder sees them."""
    @classmethod
    def find_spec(cls, name, path=None, target=None):
        if _blocked(name):
            raise ImportError(f"module '{name}' is not available in the sandbox (no files, network, processes or JavaScript)", name=name)
        return None

# Pyodide's own finder maps 'js' and 'pyodide_js' to JavaScript objects: only the standard finders stay.
sys.meta_path[:] = [_SandboxBlocker] + [f for f in sys.meta_path if type(f).__module__ in ('_frozen_importlib', '_frozen_importlib_external') or f in (
    __import__('_frozen_importlib').BuiltinImporter, __import__('_frozen_importlib').FrozenImporter, __import__('_frozen_importlib_external').PathFinder)]
for _name in list(sys.modules):
    if _blocked(_name):
        del sys.modules[_name]
sys.path_importer_cache.clear()

import os
for _attr in ('system', 'popen', 'fork', 'forkpty', 'execv', 'execve', 'execl', 'execle', 'execlp', 'execvp', 'execvpe',
              'spawnv', 'spawnve', 'spawnl', 'spawnle', 'posix_spawn', 'posix_spawnp', 'kill', 'killpg'):
    if hasattr(os, _attr):
        delattr(os, _attr)

sys.setrecursionlimit(1000)
# Line by line, so what was printed before a kill at the time limit is kept.
sys.stdout.reconfigure(line_buffering=True)
sys.stderr.reconfigure(line_buffering=True)

# What a call may change and the next call must not see: every loaded module's namespace (shallow),
# the module table, builtins and the import machinery. Restored after each call.
_MODULES = dict(sys.modules)
_NAMESPACES = {name: dict(vars(module)) for name, module in _MODULES.items() if hasattr(module, '__dict__')}
_META_PATH = list(sys.meta_path)
_MISSING = object()
_PATH = list(sys.path)
# The file system is Pyodide's in-memory one; what a call writes where code usually writes (the
# temporary folder, home) and the environment are reset too.
import shutil
_ENVIRON = dict(os.environ)
_CWD = os.getcwd()
_SCRATCH = {folder: set(os.listdir(folder)) for folder in ('/tmp', os.path.expanduser('~')) if os.path.isdir(folder)}
_listdir, _remove, _rmtree, _isdir, _islink, _chdir, _join = os.listdir, os.remove, shutil.rmtree, os.path.isdir, os.path.islink, os.chdir, os.path.join

def _restore():
    for name in list(sys.modules):
        if name not in _MODULES:
            del sys.modules[name]
    sys.modules.update(_MODULES)
    for name, saved in _NAMESPACES.items():
        namespace = vars(_MODULES[name])
        # By identity: comparing values could run user code (__eq__).
        if len(namespace) != len(saved) or any(namespace.get(key, _MISSING) is not value for key, value in saved.items()):
            namespace.clear()
            namespace.update(saved)
    sys.meta_path[:] = _META_PATH
    sys.path[:] = _PATH
    sys.path_importer_cache.clear()
    sys.setrecursionlimit(1000)
    if dict(os.environ) != _ENVIRON:
        os.environ.clear()
        os.environ.update(_ENVIRON)
    _chdir(_CWD)
    for folder, kept in _SCRATCH.items():
        for entry in set(_listdir(folder)) - kept:
            path = _join(folder, entry)
            if _isdir(path) and not _islink(path):
                _rmtree(path, ignore_errors=True)
            else:
                _remove(path)

def _print_traceback(exc):
    """The traceback of the user's code only: the runner's and the import blocker's frames are left out."""
    top = traceback.TracebackException(type(exc), exc, exc.__traceback__, compact=True)
    pending, seen = [top], set()
    while pending:
        current = pending.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        current.stack[:] = [frame for frame in current.stack if frame.filename != '<exec>']
        pending.extend(t for t in (current.__cause__, current.__context__, *(getattr(current, 'exceptions', None) or ())) if t is not None)
    sys.stderr.write(''.join(top.format()))

def _last_line(exc):
    lines = [line for line in ''.join(traceback.format_exception_only(type(exc), exc)).strip().splitlines() if line.strip()]
    return lines[-1].strip() if lines else type(exc).__name__

def run(code):
    """Runs one piece of user code; returns None or the exception's last line."""
    namespace = {'__name__': '__main__', '__builtins__': builtins}
    error = None
    try:
        exec(compile(code, '<sandbox>', 'exec'), namespace)
    except SystemExit as exc:
        if exc.code not in (None, 0):
            error = f'SystemExit: {exc.code}'
    except BaseException as exc:
        try:
            _print_traceback(exc)
        except BaseException:
            traceback.print_exception(type(exc), exc, exc.__traceback__)
        error = _last_line(exc)
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except BaseException:
                pass
        namespace.clear()
        try:
            _restore()
        except BaseException as exc:
            error = error or f'InternalError: the sandbox could not reset: {_last_line(exc)}'
    return error

run
`;

function harden(pyodide) {
  const Module = pyodide._module;
  const API = pyodide._api;
  // Host files: NODEFS is the only file system that reaches the host; MEMFS stays.
  for (const name of ['NODEFS', 'NODERAWFS', 'WORKERFS', 'PROXYFS', 'IDBFS', 'NATIVEFS_ASYNC']) {
    delete Module.FS.filesystems[name];
    delete Module[name];
  }
  // Sockets: every socket() fails with EACCES, whatever route reaches the syscall.
  const refuse = () => {
    throw new Module.FS.ErrnoError(2 /* EACCES */);
  };
  if (Module.SOCKFS) {
    Module.SOCKFS.createSocket = refuse;
    if (Module.SOCKFS.websocket_sock_ops) Module.SOCKFS.websocket_sock_ops.connect = refuse;
  }
  // Pyodide API that reads host files, loads code or opens sockets.
  for (const name of [
    'loadBinaryFile',
    'initializeNodeSockFS',
    'loadDynlib',
    'package_loader',
    'rawRun',
    'runPythonInternal',
    'runPythonInternal_dict',
  ])
    delete API[name];
  for (const name of [
    'loadDynamicLibrary',
    'loadWebAssemblyModule',
    'asyncLoad',
    'FS_preloadFile',
    'FS_createPreloadedFile',
    'FS_createLazyFile',
    'preloadPlugins',
    'websocket',
    'webSockets',
    'Sockets',
  ])
    delete Module[name];
  for (const name of Object.keys(pyodide)) {
    try {
      delete pyodide[name];
    } catch {
      // a non-configurable property is harmless to leave
    }
  }
  // No code from strings: without eval and the Function constructors, a JS value cannot be turned
  // into a way to run arbitrary JS (import(), process.binding, …).
  const noCode = () => {
    throw new EvalError('code generation is disabled in the Python sandbox');
  };
  for (const fn of [() => {}, async () => {}, function* () {}, async function* () {}]) {
    Object.defineProperty(Object.getPrototypeOf(fn), 'constructor', { value: noCode, writable: false, configurable: false });
  }
  // Pyodide's self-test hooks hold the real Function constructor.
  delete API.tests;
  // A stand-in keeps `x instanceof Function` (which Pyodide uses) working without making code.
  Object.defineProperty(noCode, 'prototype', { value: Function.prototype, writable: false });
  Object.defineProperty(globalThis, 'Function', { value: noCode, writable: false, configurable: false });
  for (const name of [
    'eval',
    'process',
    'fetch',
    'WebSocket',
    'XMLHttpRequest',
    'EventSource',
    'Request',
    'Response',
    'Headers',
    'FormData',
    'require',
    'module',
    'Buffer',
  ]) {
    try {
      Object.defineProperty(globalThis, name, { value: undefined, writable: false, configurable: false });
    } catch {
      // already gone
    }
  }
}

async function start() {
  const entry = import.meta.resolve('pyodide');
  const { loadPyodide } = await import(entry);
  const pyodide = await loadPyodide({
    // Pyodide guesses its folder from a stack trace, which fails inside a worker: say it.
    indexURL: fileURLToPath(new URL('.', entry)),
    // The `js` module: an empty object, not globalThis.
    jsglobals: Object.create(null),
    env: { HOME: '/home/pyodide', PYTHONHASHSEED: '0' },
    stdout: () => {},
    stderr: () => {},
    checkAPIVersion: true,
  });
  pyodide.setStdout({ write: (bytes) => stdout.write(bytes, 0), isatty: false });
  pyodide.setStderr({ write: (bytes) => stderr.write(bytes, 1), isatty: false });
  pyodide.setStdin({ error: true });
  const Module = pyodide._module;
  const heapBytes = () => Module.HEAPU8.length;
  const runner = pyodide.runPython(SETUP, { globals: pyodide.toPy({ __name__: 'dossier_sandbox' }) });
  harden(pyodide);
  return { runner, heapBytes };
}

const ready = start();
ready.then(
  ({ heapBytes }) => parentPort.postMessage({ type: 'ready', heapBytes: heapBytes() }),
  (error) =>
    parentPort.postMessage({
      type: 'failed',
      error: `the Python runtime did not start: ${String(error?.message ?? error).split('\n')[0]}`,
    }),
);

parentPort.on('message', async (message) => {
  if (message.type !== 'run') return;
  const { runner, heapBytes } = await ready;
  stdout.reset(message.output, 16, message.outputBytes);
  stderr.reset(message.output, 16 + message.outputBytes, message.outputBytes);
  memoryCap = message.memoryBytes;
  let error;
  let fatal = false;
  try {
    error = runner(message.code) ?? null;
  } catch (thrown) {
    // Pyodide itself failed (a fatal error leaves the interpreter unusable): the parent replaces this worker.
    fatal = true;
    const text = String(thrown?.message ?? thrown);
    error = /call stack/i.test(text)
      ? 'RecursionError: the interpreter ran out of stack'
      : /memory|heap|RangeError/i.test(text)
        ? 'MemoryError: the Python runtime ran out of memory'
        : `InternalError: ${text.split('\n')[0]}`;
  }
  if (typeof error === 'string' && error.startsWith('MemoryError')) fatal = true;
  parentPort.postMessage({ type: 'done', id: message.id, error, fatal, heapBytes: heapBytes() });
});
