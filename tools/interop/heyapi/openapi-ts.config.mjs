// @hey-api/openapi-ts configuration for tools/interop/run-heyapi-client.sh: its fetch client and SDK,
// generated from openapi/malipo.yaml into gen/ (not committed). Imports end in .js so that the
// compiled client runs as Node ES modules; nothing else differs from the generator's defaults.
export default {
  input: "../../../openapi/malipo.yaml",
  output: { path: "gen", importFileExtension: ".js" },
  plugins: ["@hey-api/client-fetch"],
};
