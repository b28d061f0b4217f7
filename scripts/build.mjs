#!/usr/bin/env node
// Builds the console: the browser's half (the islands' WASM and its JS, the
// stylesheet, public/) into the site, then the server binary, which embeds
// that site. `make build` runs this through scripts/with-toolchain.sh.
//
// One description of the build: names, paths, features and profiles are read
// from `[package.metadata.leptos]` in Cargo.toml, the table `cargo leptos
// watch` reads for `make dev`, so the two cannot drift apart. The steps are
// cargo-leptos's release steps done with tools that install in seconds
// (wasm-bindgen, and npm's wasm-opt, esbuild and Lightning CSS), instead of a
// tool that takes a quarter of an hour to compile (docs/building.md, "Why no
// cargo-leptos for build and test").
//
// Usage: node scripts/build.mjs [--site-only]
//   --site-only  the site alone, for a server built by `cargo test`

import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';
import { createRequire } from 'node:module';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const tools = createRequire(path.join(ROOT, 'tools', 'package.json'));
const WASM_TARGET = 'wasm32-unknown-unknown';

const started = Date.now();
const say = (line) => console.log(`\x1b[1mbuild:\x1b[0m ${line}`);
const die = (line) => {
  console.error(`\x1b[1mbuild:\x1b[0m ${line}`);
  process.exit(1);
};

/** Runs a command with its output on ours (cargo's progress included). */
function run(command, args, options = {}) {
  const result = spawnSync(command, args, { cwd: ROOT, stdio: 'inherit', ...options });
  if (result.error) die(`${command}: ${result.error.message} (run scripts/bootstrap.sh)`);
  if (result.status !== 0) die(`${command} ${args.join(' ')} failed (exit ${result.status})`);
}

/** The `[package.metadata.leptos]` table, as cargo reads it. */
function buildSettings() {
  const result = spawnSync('cargo', ['metadata', '--format-version', '1', '--no-deps', '--offline'], {
    cwd: ROOT,
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  });
  if (result.status !== 0) die(`cargo metadata failed:\n${result.stderr}`);
  const packages = JSON.parse(result.stdout).packages;
  const server = packages.find((p) => p.metadata?.leptos);
  if (!server) die('Cargo.toml has no [package.metadata.leptos]');
  const leptos = server.metadata.leptos;
  // The server finds the browser's files by this name, fixed at compile time
  // (scripts/with-toolchain.sh gives it to every cargo run).
  if (process.env.LEPTOS_OUTPUT_NAME && process.env.LEPTOS_OUTPUT_NAME !== leptos['output-name']) {
    die(`output-name "${leptos['output-name']}" differs from LEPTOS_OUTPUT_NAME "${process.env.LEPTOS_OUTPUT_NAME}"`);
  }
  return {
    name: leptos['output-name'],
    server: server.name,
    // The WASM is the server package's own library, as cargo-leptos assumes
    // when no lib-package is named.
    lib: leptos['lib-package'] ?? server.name,
    siteRoot: path.join(ROOT, leptos['site-root']),
    pkgDir: leptos['site-pkg-dir'],
    // The server's file that embeds the site (#[derive(rust_embed::Embed)]).
    embedder: 'src/assets.rs',
    style: path.join(ROOT, leptos['style-file']),
    assets: path.join(ROOT, leptos['assets-dir']),
    browsers: leptos.browserquery ?? 'defaults',
    binFeatures: leptos['bin-features'] ?? [],
    binProfile: leptos['bin-profile-release'] ?? 'release',
    binDefault: leptos['bin-default-features'] ?? true,
    libFeatures: leptos['lib-features'] ?? [],
    libProfile: leptos['lib-profile-release'] ?? 'release',
    libDefault: leptos['lib-default-features'] ?? true,
  };
}

const featureArgs = (features, defaults) => [
  ...(defaults ? [] : ['--no-default-features']),
  ...(features.length ? ['--features', features.join(',')] : []),
];

const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');

/** Writes a file only when its bytes differ: the server embeds the site, so
 * a rewritten but equal file would recompile it and its tests. */
function put(file, bytes) {
  if (fs.existsSync(file) && fs.readFileSync(file).equals(bytes)) return;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, bytes);
}

/** Every file under `dir`, relative to it. (Walked by hand: the recursive
 * readdir's entries name their folder only from Node 18.20 on.) */
function filesUnder(dir, prefix = '') {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const name = path.join(prefix, entry.name);
    if (entry.isDirectory()) return filesUnder(path.join(dir, entry.name), name);
    return entry.isFile() ? [name] : [];
  });
}

/** The islands' WASM and its JS: cargo, wasm-bindgen, wasm-opt, esbuild.
 * Returns the site's files by name. wasm-bindgen and wasm-opt are skipped
 * when cargo's module is the one they last worked on. */
function front(settings, site) {
  say(`the browser's half: cargo build -p ${settings.lib} for ${WASM_TARGET} (about 3 min the first time on 2 cores, seconds after)`);
  const targetDir = path.join(ROOT, 'target', 'front');
  const stdArgs = (process.env.LLMGW_WASM_STD_ARGS ?? '').split(' ').filter(Boolean);
  run('cargo', [
    'build', '-p', settings.lib, '--lib', '--target', WASM_TARGET, '--target-dir', targetDir,
    '--profile', settings.libProfile, ...featureArgs(settings.libFeatures, settings.libDefault), ...stdArgs,
  ]);
  const module = path.join(targetDir, WASM_TARGET, settings.libProfile, `${settings.lib.replaceAll('-', '_')}.wasm`);
  // The output depends on the module, on the tools' versions and on this
  // script's flags: all three are in the key.
  const digest = sha256(Buffer.concat([
    fs.readFileSync(module),
    fs.readFileSync(path.join(ROOT, 'tools', 'package-lock.json')),
    fs.readFileSync(fileURLToPath(import.meta.url)),
  ]));
  const cache = path.join(targetDir, 'bindgen');
  const stamp = path.join(cache, 'input.sha256');
  const outputs = [`${settings.name}.js`, `${settings.name}.wasm`];
  const current = fs.existsSync(stamp) && fs.readFileSync(stamp, 'utf8') === digest
    && outputs.every((file) => fs.existsSync(path.join(cache, file)));
  if (current) {
    say('wasm-bindgen, wasm-opt: the module is unchanged, its last output stands');
  } else {
    fs.rmSync(cache, { recursive: true, force: true });
    say('wasm-bindgen, then wasm-opt -Oz (about 20 s)');
    run('wasm-bindgen', ['--target', 'web', '--no-typescript', '--out-name', settings.name, '--out-dir', cache, module]);
    // Leptos's hydration script asks for `<name>.wasm`, as cargo-leptos names it.
    fs.renameSync(path.join(cache, `${settings.name}_bg.wasm`), path.join(cache, `${settings.name}.wasm`));
    const wasm = path.join(cache, `${settings.name}.wasm`);
    run('wasm-opt', ['-Oz', '--enable-bulk-memory', '--enable-nontrapping-float-to-int', wasm, '-o', wasm]);
    const js = path.join(cache, `${settings.name}.js`);
    const esbuild = tools('esbuild');
    fs.writeFileSync(js, esbuild.transformSync(fs.readFileSync(js, 'utf8'), { minify: true, format: 'esm' }).code);
    fs.writeFileSync(stamp, digest);
  }
  for (const file of filesUnder(cache)) {
    if (file === 'input.sha256') continue;
    site.set(path.join(settings.pkgDir, file), fs.readFileSync(path.join(cache, file)));
  }
}

/** The stylesheet, minified and prefixed for the browsers of `browserquery`,
 * as cargo-leptos does with the same compiler (Lightning CSS). */
function style(settings, site) {
  const { transform, browserslistToTargets } = tools('lightningcss');
  const browserslist = tools('browserslist');
  const { code } = transform({
    filename: path.relative(ROOT, settings.style),
    code: fs.readFileSync(settings.style),
    minify: true,
    targets: browserslistToTargets(browserslist(settings.browsers)),
  });
  site.set(path.join(settings.pkgDir, `${settings.name}.css`), Buffer.from(code));
}

function assets(settings, site) {
  for (const file of filesUnder(settings.assets)) {
    site.set(file, fs.readFileSync(path.join(settings.assets, file)));
  }
}

/** Writes the site: each file with its brotli and gzip copies, made once here
 * so the server never compresses its own code; files no longer built go.
 * Returns whether a file was added: the server's embedding notices changed
 * and removed files by itself, but not new ones. */
function writeSite(settings, site) {
  say(`the site: ${site.size} files, with brotli and gzip copies, in ${path.relative(ROOT, settings.siteRoot)}/`);
  const wanted = new Set();
  let added = false;
  for (const [name, bytes] of site) {
    const file = path.join(settings.siteRoot, name);
    wanted.add(file);
    const before = fs.existsSync(file) ? fs.readFileSync(file) : null;
    added ||= before === null;
    for (const [suffix, compress] of [
      ['.br', (b) => zlib.brotliCompressSync(b, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11 } })],
      ['.gz', (b) => zlib.gzipSync(b, { level: 9 })],
    ]) {
      wanted.add(file + suffix);
      // Compressing is the slow part; an unchanged file keeps its copies.
      if (before && before.equals(bytes) && fs.existsSync(file + suffix)) continue;
      put(file + suffix, compress(bytes));
    }
    // The file itself last: a build cut short before it leaves a file that
    // differs, so the next one makes its copies again.
    put(file, bytes);
  }
  for (const name of filesUnder(settings.siteRoot)) {
    const file = path.join(settings.siteRoot, name);
    if (!wanted.has(file)) fs.rmSync(file);
  }
  return added;
}

function server(settings) {
  say(`the server: cargo build --profile ${settings.binProfile} (about 10 min the first time on 2 cores, 4 after a change)`);
  run('cargo', [
    'build', '-p', settings.server, '--bin', settings.server, '--profile', settings.binProfile,
    ...featureArgs(settings.binFeatures, settings.binDefault),
  ]);
}

const settings = buildSettings();
const site = new Map();
front(settings, site);
style(settings, site);
assets(settings, site);
if (writeSite(settings, site)) {
  // The embedding's derive lists the site's files when it compiles; a new
  // one is seen only when the file that derives it compiles again.
  const now = new Date();
  fs.utimesSync(path.join(ROOT, settings.embedder), now, now);
}
if (!process.argv.includes('--site-only')) server(settings);
say(`done in ${Math.round((Date.now() - started) / 1000)} s`);
