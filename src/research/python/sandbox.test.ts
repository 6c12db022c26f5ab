import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { REPO_ROOT } from '../../../test/helpers.ts';
import { PythonSandbox, runPython, sharedPythonSandbox, TRUNCATED_MARK, type PythonResult } from './sandbox.ts';

// One real Pyodide sandbox for the whole file; tests that kill the worker check that the next call
// gets a fresh one. Small time limits keep the file fast.
const sandbox = new PythonSandbox();
const run = (code: string, timeoutMs = 5000): Promise<PythonResult> => sandbox.runPython(code, { timeoutMs });
after(() => sandbox.close());

/** The code must end in an error (one line) and print nothing that shows it got through. */
async function contained(code: string, pattern: RegExp = /Error/): Promise<PythonResult> {
  const result = await run(code);
  assert.ok(result.error, `expected an error, got stdout ${JSON.stringify(result.stdout)}`);
  assert.match(result.error, pattern);
  assert.ok(!result.error.includes('\n'), 'the error is one line');
  assert.doesNotMatch(result.stdout, /ESCAPED/, `escaped: ${result.stdout}`);
  return result;
}

/** Gets JavaScript values the hard way: removes the import blocker and re-imports Pyodide's C core. */
const BRIDGE =
  'import sys\nsys.meta_path[:] = [f for f in sys.meta_path if "Blocker" not in getattr(f, "__name__", type(f).__name__)]\nimport _pyodide_core as core\n';

describe('python sandbox: normal behaviour', () => {
  it('captures stdout and stderr and reports success as error null', async () => {
    const result = await run('import sys\nprint("hello", 6 * 7)\nprint("warn", file=sys.stderr)');
    assert.equal(result.stdout, 'hello 42\n');
    assert.equal(result.stderr, 'warn\n');
    assert.equal(result.error, null);
    assert.ok(result.ms >= 0);
  });

  it('an exception is its last line as the error, the traceback on stderr, stdout before it kept', async () => {
    const result = await run('print("before")\n1 / 0');
    assert.equal(result.stdout, 'before\n');
    assert.equal(result.error, 'ZeroDivisionError: division by zero');
    assert.match(result.stderr, /Traceback[\s\S]*line 2[\s\S]*ZeroDivisionError/);
    assert.doesNotMatch(result.stderr, /<exec>|_restore|find_spec/, 'the runner frame is not shown');
    assert.doesNotMatch((await run('import js')).stderr, /<exec>|find_spec/, "the blocker's frame is not shown");
    assert.equal((await run('raise ValueError("bad\\nvalue")')).error?.includes('\n'), false);
    assert.equal((await run('def f(:\n  pass')).error, 'SyntaxError: invalid syntax');
    assert.equal((await run('import sys\nsys.exit(0)')).error, null);
    assert.equal((await run('import sys\nsys.exit(3)')).error, 'SystemExit: 3');
  });

  it('the standard library works: math, statistics, json, fractions, decimal, datetime, re, collections, itertools', async () => {
    const result = await run(
      [
        'import math, statistics, json, fractions, decimal, datetime, re, collections, itertools',
        'print(math.factorial(10), math.isqrt(17), math.gcd(12, 18))',
        'print(statistics.median([3, 1, 2]), statistics.stdev([2, 4, 4, 4, 5, 5, 7, 9]))',
        'print(json.dumps({"a": [1, 2]}))',
        'print(fractions.Fraction(1, 3) + fractions.Fraction(1, 6))',
        'print(decimal.Decimal("0.1") + decimal.Decimal("0.2"))',
        'print((datetime.date(2024, 3, 1) - datetime.date(2024, 2, 1)).days)',
        'print(re.findall(r"\\d+", "a1b22"), collections.Counter("aab").most_common(1), list(itertools.accumulate([1, 2, 3])))',
      ].join('\n'),
    );
    assert.equal(result.error, null, result.stderr);
    assert.equal(result.stdout, `3628800 4 6\n2 2.138089935299395\n{"a": [1, 2]}\n1/2\n0.3\n29\n['1', '22'] [('a', 2)] [1, 3, 6]\n`);
  });

  it('state is not shared between calls: variables, builtins, module attributes, sys.path, imports', async () => {
    assert.equal(
      (
        await run(
          'secret = 41\nimport builtins, math, sys\nbuiltins.leak = 1\nmath.pi = 3\nsys.path.append("/x")\nimport csv\ncsv.mine = 2',
        )
      ).error,
      null,
    );
    const result = await run(
      'import math, sys, csv\nprint("secret" in globals(), hasattr(__builtins__, "leak") or "leak" in dir(__builtins__), math.pi, "/x" in sys.path, hasattr(csv, "mine"))',
    );
    assert.equal(result.stdout, 'False False 3.141592653589793 False False\n', result.stderr);
  });

  it('reuses the warm interpreter: many calls start no new worker and are fast', async () => {
    await run('pass');
    const before = sandbox.workersStarted;
    const times: number[] = [];
    for (let i = 0; i < 10; i++) times.push((await run(`print(${i})`)).ms);
    assert.equal(sandbox.workersStarted, before);
    assert.ok(Math.min(...times) < 200, `warm calls took ${times.join(', ')} ms`);
  });

  it('queues concurrent calls on one sandbox', async () => {
    const results = await Promise.all([1, 2, 3].map((n) => run(`x = ${n}\nprint(x * 10)`)));
    assert.deepEqual(
      results.map((r) => r.stdout),
      ['10\n', '20\n', '30\n'],
    );
  });

  it('input() fails instead of waiting', async () => {
    await contained('input("?")');
  });
});

describe('python sandbox: no host files', () => {
  it('cannot read /etc/passwd or the repository', async () => {
    await contained('print("ESCAPED", open("/etc/passwd").read())', /FileNotFoundError/);
    await contained(`print("ESCAPED", open(${JSON.stringify(join(REPO_ROOT, 'package.json'))}).read())`, /FileNotFoundError/);
    await contained(`import os\nprint("ESCAPED", os.listdir(${JSON.stringify(REPO_ROOT)}))`, /FileNotFoundError/);
    const listing = await run('import os\nprint(sorted(os.listdir("/")))');
    assert.equal(listing.error, null);
    assert.doesNotMatch(listing.stdout, /'(etc|usr|work|root|bin)'/, listing.stdout);
  });

  it('the environment, the working folder and scratch files are reset between calls', async () => {
    assert.equal(
      (
        await run(
          'import os\nos.environ["LEAK"] = "1"\nos.makedirs("/tmp/d/e")\nopen("/tmp/f", "w").write("x")\nopen(os.path.expanduser("~/g"), "w").write("y")\nos.chdir("/tmp/d")',
        )
      ).error,
      null,
    );
    const result = await run(
      'import os\nprint("LEAK" in os.environ, os.listdir("/tmp"), os.path.exists(os.path.expanduser("~/g")), os.getcwd())',
    );
    assert.equal(result.stdout, 'False [] False /home/pyodide\n', result.stderr);
  });

  it('a file written from Python stays in the in-memory file system', async () => {
    const path = join('/tmp', `dossier-sandbox-escape-${process.pid}-${Date.now()}`);
    const result = await run(`open(${JSON.stringify(path)}, "w").write("x")\nprint(open(${JSON.stringify(path)}).read())`);
    assert.equal(result.stdout, 'x\n', result.stderr);
    assert.equal(existsSync(path), false, 'the host has no such file');
    assert.equal((await run(`import os\nprint(os.path.exists(${JSON.stringify(path)}))`)).stdout, 'False\n', 'nor the next call');
    // The same file name in the repository: Python's write must not have reached it either.
    const inRepo = join(REPO_ROOT, `sandbox-escape-${process.pid}.txt`);
    assert.equal((await run(`open(${JSON.stringify(inRepo)}, "w").write("x")`)).error?.startsWith('FileNotFoundError'), true);
    assert.equal(existsSync(inRepo), false);
    assert.equal(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8').includes('"name": "dossier"'), true, 'the repository is untouched');
  });

  it('cannot mount the host file system through Pyodide', async () => {
    await contained('import pyodide_js\npyodide_js.mountNodeFS("/mnt", "/")\nprint("ESCAPED")', /ImportError/);
    const result = await run(`${BRIDGE}fs = core.to_js({}).constructor\nprint("ESCAPED" if hasattr(fs, "mountNodeFS") else "no mount")`);
    assert.equal(result.stdout, 'no mount\n', result.stderr);
  });
});

describe('python sandbox: no network', () => {
  let server: Server;
  let port = 0;
  let connections = 0;
  before(async () => {
    server = createServer((socket) => {
      connections++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('socket, urllib.request, http.client and pyodide.http are not importable', async () => {
    await contained(`import socket\ns = socket.create_connection(("127.0.0.1", ${port}))\nprint("ESCAPED")`, /ImportError/);
    await contained(`import urllib.request\nprint("ESCAPED", urllib.request.urlopen("http://127.0.0.1:${port}/").read())`, /ImportError/);
    await contained(
      `import http.client\nc = http.client.HTTPConnection("127.0.0.1", ${port})\nc.request("GET", "/")\nprint("ESCAPED")`,
      /ImportError/,
    );
    await contained(`from pyodide.http import pyfetch\nprint("ESCAPED")`, /ImportError/);
  });

  it('with the import blocker removed, a socket still cannot connect (and the server sees nothing)', async () => {
    await contained(`${BRIDGE}import socket\ns = socket.socket()\ns.connect(("127.0.0.1", ${port}))\nprint("ESCAPED")`, /Error/);
    await contained(
      `${BRIDGE}import urllib.request\nprint("ESCAPED", urllib.request.urlopen("http://127.0.0.1:${port}/", timeout=1).read())`,
      /Error/,
    );
    await contained(`${BRIDGE}from pyodide.http import pyfetch\nprint("ESCAPED")`, /Error/);
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(connections, 0, 'no connection reached the server');
  });
});

describe('python sandbox: no processes, ctypes or JavaScript', () => {
  it('subprocess, os.system, os.fork and os.popen are gone', async () => {
    const marker = join('/tmp', `dossier-sandbox-system-${process.pid}`);
    await contained(`import subprocess\nsubprocess.run(["touch", ${JSON.stringify(marker)}])\nprint("ESCAPED")`, /ImportError/);
    await contained(`import os\nos.system("touch ${marker}")\nprint("ESCAPED")`, /AttributeError/);
    await contained('import os\nos.fork()\nprint("ESCAPED")', /AttributeError/);
    await contained('import os\nos.popen("id")\nprint("ESCAPED")', /AttributeError/);
    await contained('import multiprocessing\nprint("ESCAPED")', /ImportError/);
    assert.equal(existsSync(marker), false);
  });

  it('ctypes is not importable', async () => {
    await contained('import ctypes\nprint("ESCAPED", ctypes.CDLL(None))', /ImportError/);
    await contained('import _ctypes\nprint("ESCAPED")', /ImportError/);
  });

  it('import js / pyodide_js / pyodide.ffi / run_js / __import__ / importlib all fail', async () => {
    await contained('import js\nprint("ESCAPED", js)', /ImportError: module 'js' is not available/);
    await contained('import pyodide_js\nprint("ESCAPED")', /ImportError/);
    await contained('from pyodide.ffi import to_js\nprint("ESCAPED")', /ImportError/);
    await contained('from pyodide.code import run_js\nrun_js("1")\nprint("ESCAPED")', /ImportError/);
    await contained('js = __import__("js")\nprint("ESCAPED")', /ImportError/);
    await contained('import importlib\nimportlib.import_module("js")\nprint("ESCAPED")', /ImportError/);
    await contained('import _pyodide_core\nprint("ESCAPED")', /ImportError/);
    await contained('import gc\nprint("ESCAPED", len(gc.get_objects()))', /ImportError/);
  });

  it('sys.modules tricks find nothing', async () => {
    await contained('import sys\nprint("ESCAPED", sys.modules["js"])', /KeyError/);
    const result = await run(
      'import sys\nprint(sorted(m for m in sys.modules if "pyodide" in m or m in ("js", "ctypes", "gc", "socket")))',
    );
    assert.equal(result.stdout, '[]\n', result.stderr);
    await contained('import sys\nsys.meta_path.clear()\nimport js\nprint("ESCAPED")', /Error/);
    await contained('import sys\nsys.meta_path.pop(0)\nimport js\nprint("ESCAPED")', /ModuleNotFoundError/);
    await contained('import sys\nsys.meta_path.pop(0)\nimport pyodide_js\nprint("ESCAPED")', /ModuleNotFoundError/);
  });

  it('the blocker is back for the next call after a call removed it', async () => {
    await run('import sys\nsys.meta_path.clear()');
    await contained('import js', /ImportError: module 'js' is not available/);
  });

  it('a walk over the JavaScript objects reachable from such values finds no handle on the runtime or the host', async () => {
    const walk = [
      'Obj = core.to_js([]).constructor.prototype.__proto__.constructor',
      'queue = [(core.to_js([]), "[]"), (core.to_js({}), "{}"), (core.to_js(b"x"), "bytes"), (core.create_proxy(print).constructor, "PyProxy")]',
      'seen, hits, control = set(), set(), False',
      // Names of the handles the worker holds or removed: the runtime, its file systems and sockets, Node.
      'SUSPECT = {"Module", "_module", "API", "_api", "FS", "NODEFS", "SOCKFS", "HEAPU8", "wasmMemory", "mountNodeFS", "loadBinaryFile", "loadPackage", "runPython", "pyodide_py", "process", "require", "binding", "dlopen", "globalThis", "global", "eval", "fetch", "readFileSync", "WebAssembly", "_emscripten_run_script"}',
      'while queue and len(seen) < 3000:',
      '    x, path = queue.pop(0)',
      '    if x.js_id in seen:',
      '        continue',
      '    seen.add(x.js_id)',
      '    try:',
      '        names = list(Obj.getOwnPropertyNames(x))',
      '        proto = Obj.getPrototypeOf(x)',
      '    except Exception:',
      '        continue',
      '    if proto is not None and hasattr(proto, "js_id"):',
      '        queue.append((proto, path + ".__proto__"))',
      '    for n in names:',
      '        if n in SUSPECT:',
      '            hits.add(path + "." + n)',
      '        if n == "getPrototypeOf":',
      '            control = True',
      '        try:',
      '            v = Obj.getOwnPropertyDescriptor(x, n).value',
      '        except Exception:',
      '            continue',
      '        if hasattr(v, "js_id") and path.count(".") < 6:',
      '            queue.append((v, path + "." + n))',
      'print(len(seen), control, sorted(hits))',
    ].join('\n');
    const result = await run(`${BRIDGE}${walk}`, 20_000);
    assert.equal(result.error, null, result.stderr);
    const [, count, control, hits] = /^(\d+) (True|False) (.*)$/.exec(result.stdout.trim()) ?? [];
    assert.ok(Number(count) > 50, `walked ${count} objects`);
    assert.equal(control, 'True', 'the walk sees property names (it found Object.getPrototypeOf)');
    assert.equal(hits, '[]', result.stdout);
  });

  it('even JavaScript values reached by re-importing the C core cannot run code or reach the host', async () => {
    // The Function constructor (the way from any JS value to arbitrary JS: process, import(), fs).
    await contained(
      `${BRIDGE}print("ESCAPED", core.to_js([1]).constructor.constructor("return process")())`,
      /code generation is disabled/,
    );
    await contained(`${BRIDGE}print("ESCAPED", core.to_js([1]).map.constructor("return 1")())`, /code generation is disabled/);
    await contained(
      `${BRIDGE}Obj = core.to_js([]).constructor.prototype.__proto__.constructor\nF = Obj.getPrototypeOf(Obj).constructor\nprint("ESCAPED", F("return 1")())`,
      /code generation is disabled/,
    );
    await contained(
      `${BRIDGE}Obj = core.to_js([]).constructor.prototype.__proto__.constructor\nprint("ESCAPED", Obj.getOwnPropertyDescriptor(Obj.getPrototypeOf(Obj), "constructor").value("return 1")())`,
      /code generation is disabled/,
    );
    // Old-style register of a fake js module gives nothing more than the value itself.
    // Re-registering a js module from the core gives nothing more than the value registered.
    const result = await run(
      `${BRIDGE}try:\n    import pyodide.ffi\n    pyodide.ffi.register_js_module("js", core.to_js({}))\n    import js\n    print(hasattr(js, "process"), hasattr(js, "fetch"), hasattr(js, "require"))\nexcept ImportError:\n    print(False, False, False)`,
    );
    assert.equal(result.stdout, 'False False False\n', result.stderr);
  });
});

describe('python sandbox: limits', () => {
  it('an infinite loop dies at the time limit and the next call works on a fresh worker', async () => {
    const before = sandbox.workersStarted;
    const started = performance.now();
    const result = await sandbox.runPython('print("started")\nwhile True:\n    pass', { timeoutMs: 1500 });
    const took = performance.now() - started;
    assert.equal(result.error, 'TimeoutError: the code ran longer than 1500 ms');
    assert.ok(took >= 1450 && took < 4000, `took ${took} ms`);
    assert.equal(result.stdout, 'started\n', 'output printed before the kill is kept');
    const next = await run('print("alive")');
    assert.equal(next.stdout, 'alive\n');
    assert.equal(sandbox.workersStarted, before + 1, 'a new worker');
  });

  it('a memory bomb ends with a MemoryError and does not take the host down', async () => {
    const rssBefore = process.memoryUsage().rss;
    const big = await sandbox.runPython('x = bytearray(1024 * 1024 * 1024)\nprint("ESCAPED")', { memoryMb: 128, timeoutMs: 10_000 });
    assert.match(big.error ?? '', /^MemoryError: .*128 MB/);
    const slow = await sandbox.runPython('chunks = []\nwhile True:\n    chunks.append(bytearray(1024 * 1024))', {
      memoryMb: 128,
      timeoutMs: 10_000,
    });
    assert.match(slow.error ?? '', /^MemoryError/);
    const many = await sandbox.runPython('xs = []\nwhile True:\n    xs.append([0] * 1000)', { memoryMb: 128, timeoutMs: 10_000 });
    assert.match(many.error ?? '', /^MemoryError/);
    assert.ok(process.memoryUsage().rss - rssBefore < 900 * 1024 * 1024, 'the host did not balloon');
    assert.equal((await run('print(sum(range(10)))')).stdout, '45\n');
  });

  it('deep recursion is a RecursionError, not a crash', async () => {
    const result = await run('def f(n):\n    return f(n + 1)\nf(0)');
    assert.equal(result.error, 'RecursionError: maximum recursion depth exceeded');
    // With the limit raised the interpreter's own stack or heap runs out first: still a one-line error.
    const raised = await sandbox.runPython('import sys\nsys.setrecursionlimit(10**6)\ndef f(n):\n    return f(n + 1)\nf(0)', {
      memoryMb: 64,
      timeoutMs: 10_000,
    });
    assert.match(raised.error ?? '', /^(RecursionError|MemoryError)/);
    assert.equal((await run('print("ok")')).stdout, 'ok\n');
  });

  it('huge output is truncated at 64 KiB per stream with a marker', async () => {
    const result = await run('import sys\nprint("x" * 10_000_000)\nprint("y" * 200_000, file=sys.stderr)');
    assert.equal(result.error, null);
    assert.ok(result.stdout.endsWith(TRUNCATED_MARK));
    assert.equal(result.stdout.length, 64 * 1024 + TRUNCATED_MARK.length);
    assert.ok(result.stderr.endsWith(TRUNCATED_MARK));
    const lines = await run('for i in range(200_000):\n    print(i)');
    assert.equal(lines.error, null);
    assert.ok(lines.stdout.startsWith('0\n1\n2\n') && lines.stdout.endsWith(TRUNCATED_MARK));
    // A multi-byte character cut at the cap is dropped, not mangled.
    const wide = await sandbox.runPython('print("é" * 1000)', { outputBytes: 1025 });
    assert.equal(wide.stdout, `${'é'.repeat(512)}${TRUNCATED_MARK}`);
  });

  it('a fork of many threads is contained: threads cannot start, the host is fine', async () => {
    const result = await run(
      'import threading\nts = [threading.Thread(target=lambda: None) for _ in range(500)]\nfor t in ts:\n    t.start()\nprint("ESCAPED")',
    );
    assert.match(result.error ?? '', /RuntimeError: can't start new thread/);
    await contained('import os\nfor _ in range(100):\n    os.fork()\nprint("ESCAPED")', /AttributeError/);
    assert.equal((await run('print(1)')).stdout, '1\n');
  });

  it('an abort terminates the run and the call rejects; the next call works', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('stop')), 300);
    const started = performance.now();
    await assert.rejects(sandbox.runPython('while True:\n    pass', { signal: controller.signal, timeoutMs: 10_000 }), /aborted/);
    assert.ok(performance.now() - started < 3000);
    await assert.rejects(sandbox.runPython('print(1)', { signal: AbortSignal.abort() }), /aborted/);
    assert.equal((await run('print(2)')).stdout, '2\n');
  });

  it('bad limits are one-line errors', async () => {
    await assert.rejects(sandbox.runPython('1', { timeoutMs: 0 }), /timeoutMs must be an integer/);
    await assert.rejects(sandbox.runPython('1', { memoryMb: 8 }), /memoryMb must be an integer from 64/);
  });

  it('runPython() runs on the one shared sandbox, whose idle worker does not hold the process open', async () => {
    assert.equal((await runPython('print(5)')).stdout, '5\n');
    assert.equal(sharedPythonSandbox(), sharedPythonSandbox());
    assert.equal(sharedPythonSandbox().workersStarted, 1);
  });

  it('close() terminates the worker and later calls fail', async () => {
    const own = new PythonSandbox();
    assert.equal((await own.runPython('print(3)')).stdout, '3\n');
    await own.close();
    await assert.rejects(own.runPython('print(4)'), /closed/);
  });
});
