#!/usr/bin/env node
// Makes the optional native vector index (faiss-node) usable, as the
// project's postinstall step. Plain Node ESM: it runs before tsx is usable.
//
//   1. If faiss-node already loads and searches, do nothing.
//   2. Try faiss-node's own prebuilt binary (prebuild-install), briefly.
//   3. Otherwise build faiss-node from its C++ sources with cmake-js against an
//      installed faiss (e.g. Debian's libfaiss-dev), using the small files in
//      scripts/faiss/ in place of the faiss source tree faiss-node expects.
//   4. If that fails too, explain once what is missing and exit 0: Cairn then
//      uses its exact TypeScript flat index, and `npm ci` still succeeds.
//
// Options: --force (discard any existing build and redo it), --from-source (skip the
// prebuilt), --verbose (show build output). CAIRN_SKIP_FAISS=1 skips it all.
// Environment equivalents: CAIRN_FAISS_FORCE=1, CAIRN_FAISS_FROM_SOURCE=1,
// CAIRN_FAISS_VERBOSE=1; CAIRN_FAISS_PREBUILD_TIMEOUT_MS (default 30000).

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SHIM_DIR = path.join(ROOT, 'scripts', 'faiss');
const SHIM_FILES = ['CMakeLists.txt', 'cairn-faiss-compat.h', 'cairn-faiss-tuning.h'];
const FIRST_FAISS_WITH_IDX_T = '1.7.4';

const args = new Set(process.argv.slice(2));
const flag = (name, env) => args.has(`--${name}`) || process.env[env] === '1';
const FORCE = flag('force', 'CAIRN_FAISS_FORCE');
const FROM_SOURCE = flag('from-source', 'CAIRN_FAISS_FROM_SOURCE');
const VERBOSE = flag('verbose', 'CAIRN_FAISS_VERBOSE');
const PREBUILD_TIMEOUT_MS = Number(process.env.CAIRN_FAISS_PREBUILD_TIMEOUT_MS) || 30_000;

const IS_WIN = process.platform === 'win32';
const IS_DEBIAN = isDebianLike();
const APT_CMD =
  (typeof process.getuid === 'function' && process.getuid() !== 0 ? 'sudo ' : '') +
  'apt-get install -y --no-install-recommends libfaiss-dev libopenblas-dev patchelf cmake g++ make';
const FALLBACK_NOTE =
  'Until then Cairn uses its exact TypeScript flat index instead (same results, slower on large vaults).';

const started = Date.now();
const seconds = () => `${((Date.now() - started) / 1000).toFixed(1)}s`;

// Loads faiss-node in a fresh process and does a tiny add + search.
// Run in a child so a broken or missing binary cannot crash this script.
const VERIFY_SOURCE = `
process.env.OMP_NUM_THREADS ??= '1';
const faiss = require(process.argv[1]);
const index = new faiss.IndexFlatIP(4);
index.add([1, 0, 0, 0, 0, 1, 0, 0]);
const { labels, distances } = index.search([0, 1, 0, 0], 1);
if (index.ntotal() !== 2 || labels[0] !== 1 || Math.abs(distances[0] - 1) > 1e-6) {
  throw new Error('faiss-node returned a wrong search result: ' + JSON.stringify({ labels, distances }));
}
`;

function verify(faissDir) {
  const r = spawnSync(process.execPath, ['-e', VERIFY_SOURCE, faissDir], {
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, OMP_NUM_THREADS: process.env.OMP_NUM_THREADS ?? '1' },
  });
  if (r.status === 0) return { ok: true };
  const lines = `${r.stderr ?? ''}${r.error ? r.error.message : ''}`.split('\n').map((l) => l.trim());
  const reason = lines.find((l) => /^(\w*Error|Error)\b/.test(l)) ?? lines.filter(Boolean).pop() ?? `exit ${r.status}`;
  return { ok: false, reason };
}

function isDebianLike() {
  // Mirrors faiss-node's CMakeLists, which on Debian copies libgomp/openblas
  // next to the addon and rewrites their rpath with patchelf.
  try {
    return fs.existsSync('/etc/debian_version') && /Debian/.test(fs.readFileSync('/etc/issue', 'utf8'));
  } catch {
    return false;
  }
}

function which(cmd) {
  const exts = IS_WIN ? (process.env.PATHEXT ?? '.EXE;.CMD;.BAT').split(';') : [''];
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    for (const ext of exts) {
      const candidate = path.join(dir, cmd + ext);
      try {
        if (fs.statSync(candidate).isFile()) return candidate;
      } catch {
        // not here
      }
    }
  }
  return null;
}

function versionLess(a, b) {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] || 0) - (pb[i] || 0);
    if (d !== 0) return d < 0;
  }
  return false;
}

// Finds an installed faiss with a CMake package config (what the shim's
// find_package(faiss CONFIG) needs) and reads its version, preferring the
// FAISS_VERSION_* macros of the headers that will actually be compiled.
function findInstalledFaiss() {
  const prefixes = [
    ...(process.env.CMAKE_PREFIX_PATH ?? '').split(path.delimiter),
    process.env.CONDA_PREFIX,
    process.env.CONDA_PREFIX && path.join(process.env.CONDA_PREFIX, 'Library'),
    '/usr/local',
    '/usr',
    '/opt/homebrew',
    '/opt/local',
  ].filter(Boolean);

  const configDirs = process.env.faiss_DIR ? [process.env.faiss_DIR] : [];
  for (const prefix of prefixes) {
    for (const lib of ['lib', 'lib64']) {
      configDirs.push(path.join(prefix, lib, 'cmake', 'faiss'));
      let subdirs = [];
      try {
        subdirs = fs.readdirSync(path.join(prefix, lib)).filter((d) => /-linux-|-gnu/.test(d));
      } catch {
        // no such lib dir
      }
      for (const d of subdirs) configDirs.push(path.join(prefix, lib, d, 'cmake', 'faiss'));
    }
    configDirs.push(path.join(prefix, 'share', 'faiss'));
  }

  for (const dir of configDirs) {
    if (!fs.existsSync(path.join(dir, 'faiss-config.cmake'))) continue;
    let version = null;
    try {
      const text = fs.readFileSync(path.join(dir, 'faiss-config-version.cmake'), 'utf8');
      version = /set\(PACKAGE_VERSION "([\d.]+)"\)/.exec(text)?.[1] ?? null;
    } catch {
      // version file missing: fall back to the headers
    }
    // <prefix>/lib[/<triplet>]/cmake/faiss or <prefix>/share/faiss: the
    // headers are in <prefix>/include, a few levels up.
    let header = null;
    for (let up = path.dirname(dir), i = 0; i < 4 && !header; up = path.dirname(up), i++) {
      const candidate = path.join(up, 'include', 'faiss', 'Index.h');
      if (fs.existsSync(candidate)) header = candidate;
    }
    try {
      const text = fs.readFileSync(header ?? '', 'utf8');
      const part = (name) => new RegExp(`#define\\s+FAISS_VERSION_${name}\\s+(\\d+)`).exec(text)?.[1];
      const [maj, min, pat] = [part('MAJOR'), part('MINOR'), part('PATCH')];
      if (maj && min && pat) version = `${maj}.${min}.${pat}`;
    } catch {
      // headers elsewhere: keep the config's version
    }
    return { configDir: dir, version };
  }
  return null;
}

// What a source build needs that is visibly absent (empty when all is there).
function missingForSourceBuild() {
  const missing = [];
  if (!findInstalledFaiss()) missing.push('faiss library and headers with its CMake config (libfaiss-dev)');
  if (!which('cmake')) missing.push('cmake');
  if (!IS_WIN) {
    const cxx = process.env.CXX?.trim().split(/\s+/)[0];
    if (!(cxx ? which(cxx) || fs.existsSync(cxx) : which('c++') || which('g++') || which('clang++'))) {
      missing.push('a C++ compiler (g++)');
    }
    if (!which('make') && !which('ninja')) missing.push('make');
  }
  if (IS_DEBIAN) {
    if (!which('patchelf')) missing.push('patchelf');
    const libDirs = ['/usr/lib/x86_64-linux-gnu', '/lib/aarch64-linux-gnu', '/usr/lib/aarch64-linux-gnu'];
    const hasLib = (name) => libDirs.some((d) => fs.existsSync(path.join(d, name)));
    if (!hasLib('libopenblas.so.0') || !hasLib('libgfortran.so.5')) missing.push('OpenBLAS (libopenblas-dev)');
  }
  return missing;
}

function openLog(faissDir) {
  const logPath = path.join(faissDir, 'cairn-install.log');
  const fd = fs.openSync(logPath, 'w');
  return { logPath, fd, stdio: VERBOSE ? ['ignore', 'inherit', 'inherit'] : ['ignore', fd, fd] };
}

function run(cmd, cmdArgs, opts, log) {
  fs.writeSync(log.fd, `\n$ ${[cmd, ...cmdArgs].join(' ')}\n`);
  const r = spawnSync(cmd, cmdArgs, { stdio: log.stdio, ...opts });
  if (r.error) fs.writeSync(log.fd, `${r.error.message}\n`);
  return r.status === 0 && !r.error;
}

// The most telling line of a failed build log, for the one-line explanation.
function firstBuildError(logPath) {
  let text = '';
  try {
    text = fs.readFileSync(logPath, 'utf8');
  } catch {
    // no log
  }
  const lines = text.split('\n').map((l) => l.trim());
  const hit =
    lines.find((l) => /(fatal error|error:)/i.test(l) && !/\*\*\*/.test(l)) ??
    lines.find((l) => /^CMake Error|Could not find|not found/i.test(l));
  const short = hit && hit.length > 200 ? `${hit.slice(0, 197)}...` : hit;
  return short ? `the build failed: ${short}` : 'the build failed';
}

function tryPrebuilt(faissDir, log) {
  let bin;
  try {
    bin = createRequire(path.join(faissDir, 'package.json')).resolve('prebuild-install/bin.js');
  } catch {
    return false;
  }
  // Same invocation as faiss-node's own install script.
  return run(process.execPath, [bin, '--runtime', 'napi', '--verbose'], {
    cwd: faissDir,
    timeout: PREBUILD_TIMEOUT_MS,
  }, log);
}

function buildFromSource(faissDir, faiss, log) {
  const cmakeJs = createRequire(path.join(ROOT, 'package.json')).resolve('cmake-js/bin/cmake-js');
  const depsDir = path.join(faissDir, 'deps', 'faiss');
  fs.mkdirSync(depsDir, { recursive: true });
  for (const f of SHIM_FILES) fs.copyFileSync(path.join(SHIM_DIR, f), path.join(depsDir, f));

  // Unknown version: force-include anyway; the header checks FAISS_VERSION_*.
  const compat = !faiss.version || versionLess(faiss.version, FIRST_FAISS_WITH_IDX_T);
  fs.writeSync(log.fd, `faiss ${faiss.version ?? '(unknown version)'} at ${faiss.configDir}; compat header: ${compat}\n`);
  return run(process.execPath, [
    cmakeJs, 'rebuild',
    '--directory', faissDir,
    `--CDCAIRN_FAISS_COMPAT=${compat ? 'ON' : 'OFF'}`,
    `--CDfaiss_DIR=${faiss.configDir}`,
  ], { cwd: faissDir }, log);
}

function explain(problem, { logPath, missing = [] } = {}) {
  const lines = [`faiss-node: not available: ${problem}`];
  if (missing.length) lines.push(`  Missing: ${missing.join(', ')}.`);
  if (IS_DEBIAN || fs.existsSync('/etc/debian_version')) {
    lines.push(`  To fix: ${APT_CMD}`);
  } else if (process.platform === 'darwin') {
    lines.push('  To fix: brew install faiss libomp cmake   (plus Xcode command line tools)');
  } else {
    lines.push('  To fix: install faiss (>= 1.7.3, with its CMake config), OpenMP, CMake and a C++ compiler.');
  }
  lines.push('  then run: node scripts/install-faiss.mjs');
  lines.push(`  ${FALLBACK_NOTE}`);
  if (logPath) lines.push(`  Details: ${logPath}`);
  console.log(lines.join('\n'));
}

const noPrebuilt = () => (FROM_SOURCE ? '' : 'no prebuilt binary could be installed, and ');

function main() {
  if (process.env.CAIRN_SKIP_FAISS === '1') {
    console.log('faiss-node: skipped (CAIRN_SKIP_FAISS=1)');
    return;
  }

  let faissDir;
  try {
    faissDir = path.dirname(createRequire(path.join(ROOT, 'package.json')).resolve('faiss-node/package.json'));
  } catch {
    explain('the faiss-node package is not installed (run npm install first).');
    return;
  }

  const releaseNode = path.join(faissDir, 'build', 'Release', 'faiss-node.node');
  if (FORCE) {
    fs.rmSync(path.join(faissDir, 'build'), { recursive: true, force: true });
  } else if (fs.existsSync(releaseNode)) {
    const before = verify(faissDir);
    if (before.ok) {
      console.log(`faiss-node: OK, already working (checked in ${seconds()})`);
      return;
    }
  }

  const log = openLog(faissDir);
  try {
    if (!FROM_SOURCE) {
      if (tryPrebuilt(faissDir, log)) {
        const check = verify(faissDir);
        if (check.ok) {
          console.log(`faiss-node: OK, prebuilt binary installed in ${seconds()}`);
          return;
        }
        fs.writeSync(log.fd, `prebuilt binary does not work here: ${check.reason}\n`);
        fs.rmSync(path.join(faissDir, 'build'), { recursive: true, force: true });
      }
    }

    const missing = missingForSourceBuild();
    if (missing.length) {
      fs.writeSync(log.fd, `source build skipped, missing: ${missing.join(', ')}\n`);
      explain(`${noPrebuilt()}it cannot be built from source here.`, {
        missing,
        logPath: log.logPath,
      });
      return;
    }

    const faiss = findInstalledFaiss();
    if (process.stderr.isTTY && !VERBOSE) {
      process.stderr.write(`faiss-node: building from source against faiss ${faiss.version ?? ''}...\n`);
    }
    const built = buildFromSource(faissDir, faiss, log);
    const check = built ? verify(faissDir) : { ok: false, reason: firstBuildError(log.logPath) };
    if (check.ok) {
      console.log(`faiss-node: OK, built from source against faiss ${faiss.version ?? '(unknown version)'} in ${seconds()}`);
      return;
    }
    fs.writeSync(log.fd, `\nresult: ${check.reason}\n`);
    // Leave no half-working addon behind for Cairn to trip over.
    fs.rmSync(releaseNode, { force: true });
    explain(`${noPrebuilt()}building it from source failed (${check.reason}).`, {
      logPath: log.logPath,
    });
  } finally {
    fs.closeSync(log.fd);
  }
}

try {
  main();
} catch (err) {
  explain(`unexpected error while setting it up: ${err?.message ?? err}`);
}
process.exitCode = 0;
