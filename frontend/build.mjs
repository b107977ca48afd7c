// Bundles the app's JS and CSS into dist/ and copies vendored files, so the app serves every asset.
import { build } from "esbuild";
import { cpSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
// OUT_DIR builds elsewhere (a worktree's private copy); the app serves frontend/dist.
const out = process.env.OUT_DIR || join(here, "dist");
rmSync(out, { recursive: true, force: true });
mkdirSync(join(out, "vendor", "swagger-ui"), { recursive: true });

await build({
  entryPoints: {
    app: join(here, "src", "app.js"),
    exercise: join(here, "src", "editor", "main.js"), // only the exercise page loads the editor
    authoring: join(here, "src", "authoring.js"), // only the authoring pages load it
    "lti-storage": join(here, "src", "lti-storage.js"), // only the LTI sign-in pages load it
    style: join(here, "src", "style.css"),
  },
  bundle: true,
  minify: true,
  sourcemap: true,
  target: ["es2020"],
  outdir: out,
  logLevel: "info",
});
await build({
  entryPoints: [join(here, "src", "docs-init.js")],
  bundle: false,
  minify: true,
  outdir: out,
});

const swagger = join(here, "node_modules", "swagger-ui-dist");
for (const file of ["swagger-ui-bundle.js", "swagger-ui.css", "LICENSE"]) {
  cpSync(join(swagger, file), join(out, "vendor", "swagger-ui", file));
}
writeFileSync(join(out, ".built"), new Date().toISOString() + "\n");
