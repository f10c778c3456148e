const js = require("/tmp/agentls-node/node_modules/@eslint/js");
module.exports = [js.configs.recommended, { rules: { "no-console": "warn", semi: ["error", "always"] }, languageOptions: { sourceType: "commonjs", globals: { console: "readonly", require: "readonly", module: "writable" } } }];
