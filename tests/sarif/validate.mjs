// The official schema is JSON Schema draft-04, hence ajv-draft-04.
// Usage: node validate.mjs FILE.sarif — exits 0 when FILE is valid SARIF 2.1.0, else prints the errors.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import Ajv from "ajv-draft-04";
import addFormats from "ajv-formats";

const require = createRequire(import.meta.url);
const schemaPath = require.resolve("@microsoft/jest-sarif/lib/schemas/sarif-2.1.0-rtm.5.json");
const schema = JSON.parse(readFileSync(schemaPath, "utf8"));
// unicodeRegExp off: one pattern of the official schema is not a valid "u"-mode regular expression.
const ajv = new Ajv({ allErrors: true, strict: false, unicodeRegExp: false });
addFormats(ajv);
const validate = ajv.compile(schema);
const log = JSON.parse(readFileSync(process.argv[2], "utf8"));
if (!validate(log)) {
  console.error(JSON.stringify(validate.errors, null, 2));
  process.exit(1);
}
console.log("valid SARIF 2.1.0");
