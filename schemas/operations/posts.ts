/**
 * Post lookups: a post, its comments and its reactions, by URL or full slug.
 */
import * as z from 'zod';
import { reactionTypeParam, reactionTypes } from '../parameters.js';
import { commentSchema, postSchema, reactionSchema } from '../records.js';
import { byQuery, postPath } from '../v2-paths.js';
import { byIdentifier, dataLookup, listOf, postIdentifiers } from './data-lookup.js';

const POST_IDS = ['url', 'slug'] as const;

export const postDetails = dataLookup({
  id: 'posts.details',
  v2: [byQuery('/posts/detail', 'url')],
  family: 'posts',
  group: 'posts',
  summary: 'A post',
  description: 'The post, by its URL or its full slug (not a numeric id).',
  variants: byIdentifier('/v1/posts/details', POST_IDS),
  identifiers: POST_IDS,
  query: z.object(postIdentifiers(...POST_IDS)),
  data: postSchema,
  paging: 'none',
  price: 1,
  mcpTool: 'get_post',
});

export const postComments = dataLookup({
  id: 'posts.comments',
  v2: [postPath('/comments')],
  family: 'posts',
  group: 'posts',
  summary: "A post's comments",
  description: 'Up to 10 comments on the post, newest first, as data.comments.',
  variants: byIdentifier('/v1/posts/comments', POST_IDS),
  identifiers: POST_IDS,
  query: z.object(postIdentifiers(...POST_IDS)),
  data: listOf('comments', commentSchema),
  paging: 'none',
  price: 1,
  mcpTool: 'get_post_comments',
});

export const postReactions = dataLookup({
  id: 'posts.reactions',
  v2: [postPath('/reactions')],
  examples: { reactionType: 'ALL' },
  family: 'posts',
  group: 'posts',
  summary: "A post's reactions",
  description: `Up to 10 reactions to the post of one reactionType (${reactionTypes.join(', ')}) or ALL, as data.reactions.`,
  variants: byIdentifier('/v1/posts/reactions', POST_IDS),
  identifiers: POST_IDS,
  query: z.object({ ...postIdentifiers(...POST_IDS), reactionType: reactionTypeParam }),
  data: listOf('reactions', reactionSchema),
  paging: 'none',
  price: 1,
  mcpTool: 'get_post_reactions',
});

export const postOperations = [postDetails, postComments, postReactions] as const;
