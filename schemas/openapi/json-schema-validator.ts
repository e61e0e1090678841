import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { renderOpenApiFiles } from "./files.ts";

// ajv-formats is CommonJS: its plugin is the module's default export.
const addFormats = addFormatsModule.default;

export interface SchemaCheck {
  valid: boolean;
  /** ajv's error text ("No errors" when valid), for assertion messages. */
  errors: string;
}

/**
 * Every generated schema file loaded into one strict draft 2020-12 validator, so their
 * relative `$ref`s resolve. Compiling them fails loudly if a file is not a valid schema.
 */
export function generatedSchemaValidator(): (name: string, value: unknown) => SchemaCheck {
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  addFormats(ajv);
  for (const [path, text] of renderOpenApiFiles()) if (path.startsWith("schemas/")) ajv.addSchema(JSON.parse(text));
  return (name, value) => {
    const validate = ajv.getSchema(`${name}.json`);
    if (!validate) throw new Error(`no generated schema ${name}.json`);
    return { valid: validate(value) === true, errors: ajv.errorsText(validate.errors) };
  };
}
