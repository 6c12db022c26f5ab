// The Python sandbox for research mode: Pyodide in a worker thread, no host files, network or
// JavaScript, hard time and memory limits; and the agent tool on top of it.
export {
  PythonSandbox,
  runPython,
  sharedPythonSandbox,
  PYTHON_DEFAULTS,
  PYTHON_LIMITS,
  TRUNCATED_MARK,
  type PythonResult,
  type PythonRunOptions,
} from './sandbox.ts';
export { createPythonTool, formatPythonResult, pythonTool, type PythonToolInput, type PythonToolOptions } from './python-tool.ts';
