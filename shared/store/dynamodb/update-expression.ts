/**
 * Builds an UpdateItem call from clauses, naming every attribute and value with placeholders, so
 * request-supplied names (request ids, key ids) never end up inside an expression.
 */
import type { UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import type { ItemKey } from './keys.js';

export class UpdateExpression {
  private readonly sets: string[] = [];
  private readonly adds: string[] = [];
  private readonly removes: string[] = [];
  private readonly conditions: string[] = [];
  private readonly names: Record<string, string> = {};
  private readonly values: Record<string, unknown> = {};
  private placeholders = 0;

  /** A placeholder for a value. */
  value(value: unknown): string {
    const placeholder = `:v${this.placeholders++}`;
    this.values[placeholder] = value;
    return placeholder;
  }

  /** A placeholder for an attribute or map-key name. */
  name(name: string): string {
    const placeholder = `#n${this.placeholders++}`;
    this.names[placeholder] = name;
    return placeholder;
  }

  set(...clauses: string[]): this {
    this.sets.push(...clauses);
    return this;
  }

  add(...clauses: string[]): this {
    this.adds.push(...clauses);
    return this;
  }

  remove(...paths: string[]): this {
    this.removes.push(...paths);
    return this;
  }

  /** Conditions are joined with AND. */
  when(...conditions: string[]): this {
    this.conditions.push(...conditions);
    return this;
  }

  input(
    table: string,
    key: ItemKey,
    returnValues: 'NONE' | 'UPDATED_NEW' | 'ALL_NEW' = 'NONE',
  ): UpdateCommandInput {
    const parts = [
      this.sets.length > 0 ? `SET ${this.sets.join(', ')}` : '',
      this.adds.length > 0 ? `ADD ${this.adds.join(', ')}` : '',
      this.removes.length > 0 ? `REMOVE ${this.removes.join(', ')}` : '',
    ];
    return {
      TableName: table,
      Key: key,
      UpdateExpression: parts.filter(Boolean).join(' '),
      ...(this.conditions.length > 0 ? { ConditionExpression: this.conditions.join(' AND ') } : {}),
      ...(Object.keys(this.names).length > 0 ? { ExpressionAttributeNames: this.names } : {}),
      ...(Object.keys(this.values).length > 0 ? { ExpressionAttributeValues: this.values } : {}),
      ReturnValues: returnValues,
    };
  }
}
