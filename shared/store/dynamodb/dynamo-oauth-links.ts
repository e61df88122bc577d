/**
 * OAuth subject → account bindings on DynamoDB: one item per subject, bound by a conditional put.
 */
import { type OAuthLinkStore, OAuthSubjectTakenError } from '../../auth/oauth-links.js';
import { oauthLinkRecord } from '../records/oauth-link.js';
import { itemKeys, itemName, itemTypes } from './keys.js';
import { type DynamoTable, isConditionFailure } from './table.js';

export class DynamoOAuthLinkStore implements OAuthLinkStore {
  constructor(private readonly table: DynamoTable) {}

  async link(subject: string, accountId: string): Promise<void> {
    try {
      await this.table.client.put({
        TableName: this.table.table,
        Item: { ...itemKeys.oauthLink(subject), type: itemTypes.oauthLink, subject, accountId },
        ConditionExpression: 'attribute_not_exists(pk) OR accountId = :accountId',
        ExpressionAttributeValues: { ':accountId': accountId },
      });
    } catch (error) {
      if (isConditionFailure(error)) throw new OAuthSubjectTakenError(subject);
      throw error;
    }
  }

  async find(subject: string): Promise<string | undefined> {
    const key = itemKeys.oauthLink(subject);
    const { Item } = await this.table.client.get({ TableName: this.table.table, Key: key });
    return Item && oauthLinkRecord.decode(Item, itemName(this.table.table, key)).accountId;
  }

  async unlink(subject: string): Promise<boolean> {
    const { Attributes } = await this.table.client.delete({
      TableName: this.table.table,
      Key: itemKeys.oauthLink(subject),
      ReturnValues: 'ALL_OLD',
    });
    return Attributes !== undefined;
  }
}
