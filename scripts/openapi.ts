/** `npm run openapi`: regenerates openapi/openapi.json and openapi/schemas/*.json from the Zod schemas. */
import { fileURLToPath } from "node:url";
import { writeOpenApiFiles } from "../schemas/openapi/files.ts";

const outDir = fileURLToPath(new URL("../openapi/", import.meta.url));
const written = await writeOpenApiFiles(outDir);
console.log(`wrote ${written.length} files to ${outDir}`);
