/**
 * The CloudFormation intrinsic-function evaluator: one template (the main stack or a nested one)
 * with its values resolved for one local account, lazily and memoized. It resolves Ref (parameters,
 * pseudo parameters, resources), Fn::GetAtt (resource attributes, nested stacks' outputs), Fn::Join,
 * Fn::Sub, Fn::Select, Fn::Split and AWS::NoValue, which are what CDK's templates use; anything else,
 * or anything it cannot resolve, is a CloudAssemblyError naming the template and the logical id,
 * never a silent "undefined". It reads no file itself: nested templates come through AssemblyFiles.
 */
import { CloudAssemblyError } from './cloud-assembly-error.js';
import {
  type Environment,
  PARTITION,
  type Physical,
  physicalOf,
  type ResourceKind,
  resourceKinds,
  URL_SUFFIX,
} from './resource-kinds.js';

export type JsonObject = Record<string, unknown>;

export interface TemplateResource {
  Type: string;
  Properties?: JsonObject;
  Metadata?: JsonObject;
  Condition?: string;
}

export interface Template {
  Parameters?: Record<string, { Type: string; Default?: unknown }>;
  Resources?: Record<string, TemplateResource>;
  Outputs?: Record<string, { Value: unknown }>;
}

/** What a stack needs of the cloud assembly: the local account, and its files (nested templates). */
export interface AssemblyFiles {
  readonly environment: Environment;
  /** The path under cdk.out of the asset CloudFormation would fetch from S3 as `objectKey`. */
  assetPath(objectKey: string): string | undefined;
  readJson(file: string): unknown;
}

/** `Ref: AWS::NoValue`: removes the property or list element holding it. */
const NO_VALUE = Symbol('AWS::NoValue');

/** A template's own entry (never an inherited one such as `constructor`), or undefined. */
const own = <T>(record: Record<string, T> | undefined, key: string): T | undefined =>
  record && Object.hasOwn(record, key) ? record[key] : undefined;

export const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const PSEUDO_PARAMETERS: ReadonlyMap<string, (stack: StackTemplate) => string> = new Map([
  ['AWS::Region', (stack: StackTemplate) => stack.assembly.environment.region],
  ['AWS::AccountId', (stack: StackTemplate) => stack.assembly.environment.accountId],
  ['AWS::Partition', () => PARTITION],
  ['AWS::URLSuffix', () => URL_SUFFIX],
  ['AWS::StackName', (stack: StackTemplate) => stack.name],
]);

/** One template (the main stack or a nested one), evaluated lazily and memoized. */
export class StackTemplate {
  readonly resources: ReadonlyMap<string, TemplateResource>;
  private readonly memo = new Map<string, unknown>();

  private constructor(
    readonly assembly: AssemblyFiles,
    /** The template file under cdk.out, for messages. */
    readonly file: string,
    readonly name: string,
    /** `<stack>/<nested stack logical id>/...`, the fallback of a resource's construct path. */
    readonly path: string,
    private readonly template: Template,
    /** The value the parent passes for a parameter (undefined: not passed). */
    private readonly passedParameter: (name: string) => unknown,
  ) {
    const resources = new Map<string, TemplateResource>();
    for (const [logicalId, resource] of Object.entries(template.Resources ?? {})) {
      // CDK's version report, and the condition it carries, create nothing a local server acts on.
      if (resource.Type === 'AWS::CDK::Metadata') continue;
      if (resource.Condition !== undefined)
        throw this.error(
          logicalId,
          `conditional resources are not supported (Condition ${resource.Condition})`,
        );
      resources.set(logicalId, resource);
    }
    this.resources = resources;
  }

  /** The stack a manifest's stack artifact names: no parent, so no parameter is passed. */
  static root(assembly: AssemblyFiles, file: string, name: string, template: Template): StackTemplate {
    return new StackTemplate(assembly, file, name, name, template, () => undefined);
  }

  error(where: string, message: string): CloudAssemblyError {
    return new CloudAssemblyError(`${this.file}, ${where}: ${message}`);
  }

  /** This stack and every stack nested in it, depth first. */
  withNestedStacks(): StackTemplate[] {
    return [
      this,
      ...[...this.resources]
        .filter(([, resource]) => resource.Type === 'AWS::CloudFormation::Stack')
        .flatMap(([logicalId]) => this.nestedStack(logicalId).withNestedStacks()),
    ];
  }

  /** Every resource of a type in this stack: logical id and properties. */
  resourcesOf(type: string): [string, JsonObject][] {
    return [...this.resources]
      .filter(([, resource]) => resource.Type === type)
      .map(([logicalId, resource]) => [logicalId, resource.Properties ?? {}]);
  }

  /** A resource's construct path: CDK's path metadata when synthesized with it, else the stack path. */
  constructPath(logicalId: string): string {
    const path = own(this.resources.get(logicalId)?.Metadata, 'aws:cdk:path');
    return typeof path === 'string' ? path : `${this.path}/${logicalId}`;
  }

  /** A template value with every intrinsic function resolved; `where` names the logical id. */
  evaluate(value: unknown, where: string): unknown {
    if (Array.isArray(value))
      return value.map((item) => this.evaluate(item, where)).filter((item) => item !== NO_VALUE);
    if (!isObject(value)) return value;
    const keys = Object.keys(value);
    const [key] = keys;
    if (keys.length === 1 && key !== undefined && (key === 'Ref' || key.startsWith('Fn::')))
      return this.intrinsic(key, value[key], where);
    const entries = keys.map((name) => [name, this.evaluate(value[name], where)] as const);
    return Object.fromEntries(entries.filter(([, item]) => item !== NO_VALUE));
  }

  /** A template value that must resolve to a string (numbers and booleans as CloudFormation coerces them). */
  string(value: unknown, where: string): string {
    const resolved = this.evaluate(value, where);
    if (typeof resolved === 'string') return resolved;
    if (typeof resolved === 'number' || typeof resolved === 'boolean') return String(resolved);
    throw this.error(where, `expected a string, got ${JSON.stringify(resolved) ?? String(resolved)}`);
  }

  private intrinsic(name: string, argument: unknown, where: string): unknown {
    switch (name) {
      case 'Ref':
        return this.ref(this.literal(argument, name, where), where);
      case 'Fn::GetAtt': {
        const [logicalId, attribute] =
          typeof argument === 'string'
            ? [argument.slice(0, argument.indexOf('.')), argument.slice(argument.indexOf('.') + 1)]
            : (argument as [string, string]);
        return this.getAtt(logicalId, attribute, where);
      }
      case 'Fn::Join': {
        const [delimiter, items] = argument as [string, unknown];
        return this.list(items, name, where)
          .map((item) => this.string(item, where))
          .join(delimiter);
      }
      case 'Fn::Sub':
        return this.substitute(argument, where);
      case 'Fn::Select': {
        const [index, items] = argument as [unknown, unknown];
        const list = this.list(items, name, where);
        const position = Number(this.evaluate(index, where));
        if (!Number.isInteger(position) || position < 0 || position >= list.length)
          throw this.error(where, `Fn::Select index ${String(index)} is outside a list of ${list.length}`);
        return list[position];
      }
      case 'Fn::Split': {
        const [delimiter, source] = argument as [string, unknown];
        return this.string(source, where).split(delimiter);
      }
      default:
        throw this.error(where, `unsupported intrinsic function ${name}`);
    }
  }

  private literal(argument: unknown, intrinsic: string, where: string): string {
    if (typeof argument !== 'string')
      throw this.error(where, `${intrinsic} takes a name, got ${JSON.stringify(argument)}`);
    return argument;
  }

  private list(items: unknown, intrinsic: string, where: string): unknown[] {
    const list = this.evaluate(items, where);
    if (!Array.isArray(list))
      throw this.error(where, `${intrinsic} needs a list, got ${JSON.stringify(list)}`);
    return list;
  }

  /** Fn::Sub: `${Name}` is a Ref (or the map's variable), `${Id.Attribute}` a GetAtt, `${!Text}` literal. */
  private substitute(argument: unknown, where: string): string {
    const [text, variables] =
      typeof argument === 'string' ? [argument, {}] : (argument as [string, JsonObject]);
    return text.replace(/\$\{([^}]*)\}/g, (_match, name: string) => {
      if (name.startsWith('!')) return `\${${name.slice(1)}}`;
      if (Object.hasOwn(variables, name)) return this.string(variables[name], where);
      const dot = name.indexOf('.');
      const value =
        dot > 0 ? this.getAtt(name.slice(0, dot), name.slice(dot + 1), where) : this.ref(name, where);
      return this.string(value, where);
    });
  }

  private remember<T>(key: string, compute: () => T): T {
    if (this.memo.has(key)) return this.memo.get(key) as T;
    const value = compute();
    this.memo.set(key, value);
    return value;
  }

  ref(name: string, where: string): unknown {
    if (name === 'AWS::NoValue') return NO_VALUE;
    const pseudo = PSEUDO_PARAMETERS.get(name);
    if (pseudo) return pseudo(this);
    if (own(this.template.Parameters, name))
      return this.remember(`parameter ${name}`, () => this.parameter(name, where));
    const resource = this.resources.get(name);
    if (!resource) throw this.error(where, `unknown reference ${name}`);
    return this.remember(`ref ${name}`, () =>
      this.kindOf(name, resource, where).ref(this.physical(name, where)),
    );
  }

  getAtt(logicalId: string, attribute: string, where: string): unknown {
    const resource = this.resources.get(logicalId);
    if (!resource) throw this.error(where, `Fn::GetAtt of unknown resource ${logicalId}`);
    return this.remember(`getatt ${logicalId}.${attribute}`, () => {
      if (resource.Type === 'AWS::CloudFormation::Stack' && attribute.startsWith('Outputs.'))
        return this.nestedStack(logicalId).output(attribute.slice('Outputs.'.length), where);
      const read = own(this.kindOf(logicalId, resource, where).attributes, attribute);
      if (!read)
        throw this.error(where, `Fn::GetAtt ${logicalId}.${attribute} (${resource.Type}) is not supported`);
      return read(this.physical(logicalId, where));
    });
  }

  private parameter(name: string, where: string): unknown {
    const passed = this.passedParameter(name);
    if (passed !== undefined) return passed;
    const declared = own(this.template.Parameters, name);
    if (declared?.Default !== undefined && !declared.Type.startsWith('AWS::SSM::')) return declared.Default;
    throw this.error(where, `parameter ${name} has no value (not passed by a parent stack, no default)`);
  }

  private kindOf(logicalId: string, resource: TemplateResource, where: string): ResourceKind {
    const kind = resourceKinds.get(resource.Type);
    if (!kind) throw this.error(where, `references ${logicalId}, a ${resource.Type}, which is not supported`);
    return kind;
  }

  private physical(logicalId: string, where: string): Physical {
    const resource = this.resources.get(logicalId) as TemplateResource;
    const nameProperty = this.kindOf(logicalId, resource, where).nameProperty;
    const given = nameProperty ? own(resource.Properties, nameProperty) : undefined;
    return physicalOf(
      this.name,
      logicalId,
      given === undefined ? undefined : this.string(given, logicalId),
      this.assembly.environment,
    );
  }

  /** The nested stack a AWS::CloudFormation::Stack resource creates (its template is a file asset). */
  nestedStack(logicalId: string): StackTemplate {
    return this.remember(`stack ${logicalId}`, () => {
      const properties = this.resources.get(logicalId)?.Properties ?? {};
      const templateUrl = this.string(properties.TemplateURL, logicalId);
      const file = this.assembly.assetPath(templateUrl.slice(templateUrl.lastIndexOf('/') + 1));
      if (!file)
        throw this.error(logicalId, `nested template ${templateUrl} is not an asset of the assembly`);
      const parameters = (properties.Parameters ?? {}) as JsonObject;
      return new StackTemplate(
        this.assembly,
        file,
        this.physical(logicalId, logicalId).name,
        `${this.path}/${logicalId}`,
        this.assembly.readJson(file) as Template,
        (name) => (Object.hasOwn(parameters, name) ? this.evaluate(parameters[name], logicalId) : undefined),
      );
    });
  }

  private output(name: string, where: string): unknown {
    const output = own(this.template.Outputs, name);
    if (!output) throw this.error(where, `nested stack has no output ${name}`);
    return this.evaluate(output.Value, `Outputs.${name}`);
  }
}
