/**
 * Which account an OAuth identity acts for. The operator binds a subject (`sub` of access tokens
 * from OAUTH_ISSUER) to an account with `accounts link-oauth`; the identity then shares the
 * account's credits and limits. The repository is a small port; its DynamoDB implementation is here.
 */
import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { isConditionFailure, type Store } from '../store/dynamo.js';
import { itemKeys, itemTypes } from '../store/keys.js';

export interface OAuthLinkRepository {
  /** Binds the subject to the account; refuses a subject already bound to another account. */
  link(subject: string, accountId: string): Promise<void>;
  /** The account the subject is bound to, if any. */
  find(subject: string): Promise<string | undefined>;
  /** Removes the binding; false when there was none. */
  unlink(subject: string): Promise<boolean>;
}

export class OAuthSubjectTakenError extends Error {
  constructor(subject: string) {
    super(`OAuth subject ${subject} is linked to another account; unlink it first.`);
  }
}

export class DynamoOAuthLinks implements OAuthLinkRepository {
  constructor(private readonly store: Store) {}

  async link(subject: string, accountId: string): Promise<void> {
    try {
      await this.store.doc.send(
        new PutCommand({
          TableName: this.store.table,
          Item: { ...itemKeys.oauthLink(subject), type: itemTypes.oauthLink, subject, accountId },
          ConditionExpression: 'attribute_not_exists(pk) OR accountId = :accountId',
          ExpressionAttributeValues: { ':accountId': accountId },
        }),
      );
    } catch (error) {
      if (isConditionFailure(error)) throw new OAuthSubjectTakenError(subject);
      throw error;
    }
  }

  async find(subject: string): Promise<string | undefined> {
    const { Item } = await this.store.doc.send(
      new GetCommand({ TableName: this.store.table, Key: itemKeys.oauthLink(subject) }),
    );
    return Item?.accountId as string | undefined;
  }

  async unlink(subject: string): Promise<boolean> {
    const { Attributes } = await this.store.doc.send(
      new DeleteCommand({
        TableName: this.store.table,
        Key: itemKeys.oauthLink(subject),
        ReturnValues: 'ALL_OLD',
      }),
    );
    return Attributes !== undefined;
  }
}
