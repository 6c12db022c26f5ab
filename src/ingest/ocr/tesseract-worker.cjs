// The tesseract.js worker thread, started by tesseract.js itself (our `workerPath`): its own worker
// script, with the console silenced first. Tesseract and Leptonica print diagnostics to stderr
// ("Estimating resolution as 253", "Error in pixReadStream: ...") from inside the wasm core, which
// binds console.error when it loads; a failure still reaches us as a rejected job. Plain CommonJS,
// so it loads the same under tsx, from dist/ and from an installed package. DOSSIER_OCR_DEBUG=1
// keeps the messages.
'use strict';

if (!process.env.DOSSIER_OCR_DEBUG) {
  const quiet = () => {};
  console.log = quiet;
  console.info = quiet;
  console.warn = quiet;
  console.error = quiet;
  console.debug = quiet;
}
require('tesseract.js/src/worker-script/node/index.js');
