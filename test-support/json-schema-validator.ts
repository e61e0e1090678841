/**
 * The JSON Schemas schemas/openapi/ generates from the Zod schemas, loaded into ajv for the
 * tests of schemas/openapi/: an independent validator holds the generated schemas to what Zod
 * accepts, and the fake's real answers to the schemas fake.json publishes.
 */
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { CONTRACT_SCHEMAS } from "../schemas/openapi/contract-schemas.ts";
import { standaloneSchemas } from "../schemas/openapi/json-schemas.ts";
import { FAKE_SCHEMAS } from "../schemas/openapi/named-schemas.ts";

// ajv-formats is CommonJS: its plugin is the module's default export.
const addFormats = addFormatsModule.default;

export interface SchemaCheck {
  valid: boolean;
  /** ajv's error text ("No errors" when valid), for assertion messages. */
  errors: string;
}

/**
 * One strength's schemas (the fake's, as openapi/schemas/ and fake.json publish them, or the
 * contract's, as openapi.json does) loaded into one strict draft 2020-12 validator, so their
 * relative `$ref`s resolve. Compiling them fails loudly if one is not a valid schema.
 */
export function generatedSchemaValidator(
  strength: "fake" | "contract" = "fake",
): (name: string, value: unknown) => SchemaCheck {
  // strictTuples would refuse JSON:API's `errors` (a first item of one shape, then any items): valid 2020-12.
  const ajv = new Ajv2020({ strict: true, strictTuples: false, allErrors: true });
  addFormats(ajv);
  for (const schema of standaloneSchemas(strength === "fake" ? FAKE_SCHEMAS : CONTRACT_SCHEMAS).values())
    ajv.addSchema(schema);
  return (name, value) => {
    const validate = ajv.getSchema(`${name}.json`);
    if (!validate) throw new Error(`no generated schema ${name}.json`);
    return { valid: validate(value) === true, errors: ajv.errorsText(validate.errors) };
  };
}
