/**
 * Human sentences for schema validation failures ("body/text must be string").
 *
 * Boundary rule: formatting only. The input is the error list Fastify attaches to a validation
 * failure (TypeBox's Ajv-shaped errors); the output is a `detail` for problem JSON. For a union
 * (`anyOf`) the branch the client evidently meant (the one whose `const` discriminator matched)
 * is reported; if none or several match, the discriminator's allowed values are.
 */

/** The fields of a validation error this formatter reads. */
export interface ValidationIssue {
  keyword: string;
  instancePath: string;
  schemaPath: string;
  message?: string;
  params?: Record<string, unknown>;
}

const partNames: Record<string, string> = {
  body: "body",
  querystring: "query",
  params: "path",
  headers: "headers",
};

const maxReported = 3;

/** One detail sentence for the validation errors of one request part. */
export function describeValidation(part: string, issues: readonly ValidationIssue[]): string {
  const root = partNames[part] ?? part;
  let relevant = issues.filter((issue) => !isAdditionalPropertyEcho(issue));
  const union = relevant.find((issue) => issue.keyword === "anyOf");
  if (union !== undefined) relevant = chooseBranch(union, relevant);
  if (relevant.length === 0) return `${root} is invalid`;
  const sentences = [...new Set(relevant.map((issue) => sentence(root, issue)))];
  const shown = sentences.slice(0, maxReported).join("; ");
  return sentences.length > maxReported ? `${shown}; and ${sentences.length - maxReported} more` : shown;
}

function chooseBranch(union: ValidationIssue, issues: readonly ValidationIssue[]): ValidationIssue[] {
  const prefix = `${union.schemaPath}/anyOf/`;
  const branches = new Map<string, ValidationIssue[]>();
  for (const issue of issues) {
    if (!issue.schemaPath.startsWith(prefix)) continue;
    const branch = issue.schemaPath.slice(prefix.length).split("/")[0]!;
    branches.set(branch, [...(branches.get(branch) ?? []), issue]);
  }
  const meant = [...branches.values()].filter((list) => !list.some(isDiscriminatorMiss));
  if (meant.length === 1) return meant[0]!;
  const misses = issues.filter(isDiscriminatorMiss);
  const paths = new Set(misses.map((issue) => issue.instancePath));
  if (misses.length > 0 && paths.size === 1) {
    const allowed = misses.map((issue) => JSON.stringify(issue.params?.allowedValue));
    return [
      {
        keyword: "enum",
        instancePath: misses[0]!.instancePath,
        schemaPath: union.schemaPath,
        message: `must be one of ${[...new Set(allowed)].join(", ")}`,
      },
    ];
  }
  return [{ ...union, message: "does not match any accepted shape" }];
}

function isDiscriminatorMiss(issue: ValidationIssue): boolean {
  return issue.keyword === "const";
}

// TypeBox reports an unknown field twice: once as `additionalProperties` on the object and once
// as the `false` schema it fails under that keyword. Keep the readable one.
function isAdditionalPropertyEcho(issue: ValidationIssue): boolean {
  return issue.keyword === "boolean" && issue.schemaPath.endsWith("/additionalProperties");
}

function sentence(root: string, issue: ValidationIssue): string {
  const where = `${root}${issue.instancePath}`;
  switch (issue.keyword) {
    case "additionalProperties": {
      const names = issue.params?.additionalProperties;
      const list = Array.isArray(names) ? names.join(", ") : "";
      return `${where} contains an unknown field${list === "" ? "" : `: ${list}`}`;
    }
    case "const":
      return `${where} must be ${JSON.stringify(issue.params?.allowedValue)}`;
    default:
      return `${where} ${issue.message ?? "is invalid"}`;
  }
}
