import type { RouteId } from '../routes';
import { PRICE_CAPS } from '../../shared/analytics/request-cost';

/*
 * The longer descriptions of the routes in the OpenAPI document (Markdown): the field-level rules
 * of each request and resource, which the README leaves to the reference page. The README keeps
 * the guide: concepts, the definitions of measures and rules, examples.
 */

const ACCOUNT = `The Account: \`{ name, timezone, currency }\`.

| field | meaning |
|---|---|
| \`name\` | the account's display name, 1–100 characters (letters, digits, punctuation, symbols, emoji, spaces; no control, zero-width or bidirectional-control characters); \`null\` until set |
| \`timezone\` | the pixel's **reporting time zone**, an IANA name, stored by the runtime's canonical name (\`Asia/Kolkata\` reads back as \`Asia/Calcutta\`). Default \`UTC\`. Queries do **not** default to it (they default to UTC) |
| \`currency\` | the reporting currency, ISO 4217 in capitals. Default \`USD\`. Informational: queries still take \`currency\` per request (default USD) |`;

const ORDER_SETTINGS = `Order settings decide which orders count in every revenue, attribution and cohort figure.

| field | type | rules |
|---|---|---|
| \`countPendingOrders\` | boolean | a JSON boolean (\`"true"\` is rejected); default \`false\` |
| \`countVoidedOrders\` | boolean | same; default \`false\` |
| \`refundDateAttribution\` | \`refund_date\` \\| \`order_date\` | default \`refund_date\` |
| \`exclusionFilters\` | array, 0–50 | an order matching **any** enabled filter is left out of analytics |
| filter \`id\` | UUID | optional on input; server-assigned when absent; sending it back keeps the filter's identity and \`createdAt\` |
| filter \`name\` | string, 1–100 characters | letters, marks, digits, punctuation, symbols, spaces and emoji (including ZWJ, keycap and flag sequences); control, zero-width and bidirectional-control characters are rejected. Length counts Unicode code points |
| filter \`enabled\` | boolean | |
| filter \`conditionGroups\` | array, 1–20 | groups of a filter are combined with OR |
| filter \`createdAt\`, \`updatedAt\` | date-time | server-assigned; accepted on input (so a GET response can be sent back as is) and ignored |
| group \`id\` | UUID | optional on input |
| group \`logic\` | \`and\` \\| \`or\` | joins the group's conditions |
| group \`conditions\` | array, 1–20 | |
| condition \`id\` | UUID v4 | optional on input |
| condition \`field\`, \`operator\`, \`value\` | see below | \`value\` is required |

Operators and value types per field:

| \`field\` | operators | \`value\` |
|---|---|---|
| \`sourceName\` | \`equals\`, \`not_equals\`, \`contains\` | string |
| | \`in\`, \`not_in\` | array of strings |
| \`tags\` | \`array_includes\`, \`array_includes_any\` | string or array of strings |
| \`value\` | \`equals\`, \`not_equals\`, \`greater_than\`, \`less_than\`, \`greater_than_or_equals\`, \`less_than_or_equals\` | number |
| \`paymentGateway\` | \`equals\`, \`not_equals\` | string |
| | \`in\`, \`not_in\` | array of strings |

Every other operator of the enumeration (\`exists\`, \`not_exists\`, \`not_contains\`, \`starts_with\`, \`ends_with\`, \`array_includes_all\`) is valid for none of these fields and is rejected. A string value is at most 500 characters; an array value has 1 to 100 strings. An id may appear only once in a document. Unknown keys are rejected at every level: body, filter, group and condition.`;

const COST_SETTINGS = `The CostSettings:

| member | rules |
|---|---|
| \`defaultCogsPercent\` | 0–100: the percent of an item's price taken as its unit cost when no cost is known |
| \`handlingFeePerItem\` | ≥ 0, in \`currency\`: charged per item line of an order (an order without items counts one line) |
| \`defaultShippingCostPerOrder\` | ≥ 0, in \`currency\`: the shipping cost of an order that states no \`shippingCost\` |
| \`gatewayFees\` | 0–50 entries \`{ gateway, percent (0–100), fixed (≥ 0, in currency) }\`; \`gateway\` is matched to the order's \`paymentGateway\` ignoring case and surrounding spaces, so two entries may not differ only in case (400) |
| \`currency\` | ISO 4217 (\`USD\`…) of \`handlingFeePerItem\`, \`defaultShippingCostPerOrder\` and \`fixed\` |

Amounts are at most 1,000,000,000. How an order is costed with them: README, "Costs and contribution margin".`;

const DASHBOARD_VIEW = `A view that does not exist, belongs to another pixel, or has a malformed id (anything but a lower-case UUID) is \`404 {"message": "Dashboard view not found"}\` on every route, so existence is never disclosed. Body validation (\`400\`) is checked before existence.`;

const DASHBOARD_CONFIGURATION = `The DashboardView:

- \`type\`: \`view\` (default), \`attribution_view\` or \`pnl_view\`; fixed at creation.
- \`name\`, widget \`title\`, section \`title\`: 1–100 characters, the same character rules as exclusion-filter names.
- \`order\`: an integer from −1,000,000,000 to 1,000,000,000; on create it defaults to the highest existing order + 1 (0 for the first view).
- \`createdBy\` / \`updatedBy\` are \`""\` for API-key writes. The key that created and last updated the view is stored for audit and never returned.

Configuration members (omitted ones get these defaults):

| member | rules | default |
|---|---|---|
| \`dateRange\` | \`{start, end}\`, dates or date-times; \`end\` after \`start\`; a date-only \`end\` covers the whole day | the last 30 days up to the request's UTC date (stored; it does not roll forward) |
| \`granularity\` | \`none\`, \`second\`, \`minute\`, \`hour\`, \`day\`, \`week\`, \`month\`, \`quarter\`, \`year\` | \`day\` |
| \`attributionModel\` | \`first_click\`, \`last_click\`, \`any_click\` | \`first_click\` |
| \`attributionWindow\` | days: 1, 7, 14, 28, 30, 60 or 90 | 30 |
| \`grid\` | \`{maxWidth}\`, an integer from 320 to 7680 | \`{"maxWidth": 1200}\` |
| \`widgets\` | 0–100 top-level widgets | \`[]\` |
| \`sections\` | 0–20 | \`[]\` |
| \`filters\` | one filter in the filter grammar; \`{}\` means none and is stored as absent | absent |
| \`viewFilters\` | 0–10 filters (the older generation's form) | absent |
| \`defaultSettings\` | section settings | absent |

- **Widget**: \`id\` optional (1–64 of \`A-Z a-z 0-9 - _\`; a UUID is assigned when missing; unique across the whole view); \`chartType\` \`bar\`, \`line\`, \`sparkline\` (default), \`area\`, \`table\`, \`kpi\`, \`number\` or \`pie\`; optional \`sourceWidgetId\`; \`layout\` on a 12-column grid: \`x\` 0–11 with \`x + columns ≤ 12\`, \`y\` 0–9999, \`columns\` 1–12, \`rows\` 1–24, \`minColumns ≤ columns ≤ maxColumns\` and \`minRows ≤ rows ≤ maxRows\` (defaults 1, 12, 1, 24), \`static\` (default \`false\`); overlapping widgets are accepted, the dashboard compacts them. \`dataConfig\`: \`measures\` 1–30 distinct ids from the measures catalog (each unknown id is a 400 at its index), \`dimensions\` 0–10 ids, \`filters\` 0–10 filters.
- **Section**: \`id\` (as a widget id, unique in the view), \`title\`, \`ordinal\` 0–1000 (default: its index), \`collapsed\` and \`hidden\` (default \`false\`), \`widgets\` 0–50, optional \`settings\`.
- **Section settings** (all optional): \`pacing\` boolean, \`theme\` (1–50 of \`A-Z a-z 0-9 - _\`), \`backgroundColor\` (a CSS colour, up to 50 characters), \`filters\` (one filter).
- **Whole view**: at most 200 widgets in all; the configuration at most 256 KiB of JSON (a larger one is a 400 at \`["configuration"]\` stating its size). Unknown keys are rejected at every level. Filters are checked against the grammar; their field ids are not yet checked against a dashboards context of the filter catalog.`;

/** The rule every analytics query shares (README, "Request prices"). */
const PRICED = `Priced before anything is read: an answer over ${PRICE_CAPS.values.toLocaleString('en-US')} values (time buckets × series × measures, series estimated from the catalog) or reading the events of more than ${PRICE_CAPS.eventDays} days one by one is a \`400\` that gives the estimate and how to narrow it; within the caps, the price's cost units count against the key's cost quota (\`429\` when used up), reported in \`RateLimit\` beside the request quota.`;

export const routeDescriptions: Record<RouteId, string> = {
  getAccount: [`A pixel that never set anything gets \`{"name":null,"timezone":"UTC","currency":"USD"}\`.`, ACCOUNT].join('\n\n'),
  updateAccount: [`Body: any of \`name\`, \`timezone\`, \`currency\`, at least one; any other key is a \`400\` (strict), and so is an invalid value (every problem listed; nothing is stored). The members given replace the stored ones. The answer is the whole account after the change.

- A committed change emits one \`accountUpdated\` event with \`change.kind: "account"\` and \`eventId\` \`"<pixelId>:account:<version>"\`, written in the same conditional write as the account (an outbox). A PATCH that changes nothing (every value already stored) writes nothing and emits nothing.
- Concurrent PATCHes are serialised by a version check and retried, as order-settings PUTs are.`, ACCOUNT].join('\n\n'),
  getOrderSettings: [`A pixel that never set anything gets the defaults: \`{"countPendingOrders":false,"countVoidedOrders":false,"refundDateAttribution":"refund_date","exclusionFilters":[]}\`.`, ORDER_SETTINGS].join('\n\n'),
  putOrderSettings: [`Replaces the order settings as a whole; all four fields are required.

- The body becomes the complete settings: a stored filter missing from the body is deleted, and \`"exclusionFilters": []\` deletes them all.
- Entries without an \`id\` get a new UUID. A filter sent with an id that exists keeps its \`createdAt\`; a filter with an id the pixel never had is created with that id. Every filter's \`updatedAt\` becomes the time of the request, changed or not.
- The answer has every id and timestamp filled in.
- Every committed PUT emits one \`accountUpdated\` event (\`change.kind: "orderSettings"\`), written with the settings in the same conditional write (an outbox) and published by the pipeline. A PUT that did not commit emits none; an EventBridge outage delays the event, it does not fail the PUT.
- \`400\` for anything invalid, with every problem listed; nothing is stored and nothing is published. \`503\` (retry) if the change was not stored.
- Concurrent PUTs for one pixel are serialised by a version check: one that loses the race re-reads and applies again, so no PUT and no \`createdAt\` is lost, and contention alone never fails a PUT.`, ORDER_SETTINGS].join('\n\n'),
  getCostSettings: [`Before any PUT, every cost is 0, in USD.`, COST_SETTINGS].join('\n\n'),
  putCostSettings: [`Replaces the settings as a whole: the body is a CostSettings with every member (unknown keys, a missing member, a value out of range: \`400\` at its path, nothing stored). A committed PUT publishes \`accountUpdated\` with \`change.kind: "costSettings"\` and \`eventId\` \`<pixelId>:costSettings:<version>\`, through the same outbox as the order settings. Settings apply to every order when a query runs, past orders included: nothing is precomputed.`, COST_SETTINGS].join('\n\n'),
  getApiKeyMe: `Describes the key that calls it, so a script or an agent can check what its key grants before a \`403\` tells it. No query parameters (one is a \`400\`); a revoked, expired or unknown key is a \`401\` like everywhere else. It costs no extra read: the record comes from the lookup that authenticated the request. The key itself, its hash and its hint are never returned. Clients should ignore members they do not know.`,
  getMeasures: `Lists the measures (and, for the query, its dimensions); generated from the same tables the validators read, so what it lists is exactly what is accepted.

- Optional query parameters: \`context\` (\`query\`, \`query_ads\`, \`dashboards\`, \`query_attribution\` or \`query_cohort\`; the cohort measures are listed only under \`query_cohort\`; \`dimensions\` is empty for a context other than \`query\`) and \`search\` (up to 100 characters; every word must appear in the id, titles or description, ignoring case). Unknown parameters are a \`400\`.
- \`isAverage\` is true exactly for the ratios. \`preferredTrendDirection\` is \`down\` for spend, CPC and CPM (costs) and \`up\` for everything else.`,
  getFilters: `Lists every field a query's \`filters\` may use, with its operators and the query endpoints (contexts) that accept it. Beyond the spec's members, \`kind\` says whether a field is an \`attribute\` of the row or a \`metric\` computed over the query's \`dateRange\` (an \`or\` or \`not\` group may not mix the two), and \`values\` lists the allowed values where the set is closed. Optional \`context\` (\`query_ads\`, \`query_measures\`, \`query_cohort\`, \`query_attribution\`) and \`search\` parameters.`,
  query: `Measures over the pixel's orders, tracking events and ad spend, per time bucket and dimension value, with a comparison period. It never reads the stored order settings: which orders count is decided by the request's own \`orderSettings\`. Definitions of every measure, dimension and rule: README, "POST /db-mgmt/api/query".

| member | rules |
|---|---|
| \`pixelId\` | required; must equal \`x-pixel-id\` (else 403) |
| \`measures\` | required, 1–30 ids from \`GET /db-mgmt/api/measures?context=query\`; each a string or \`{ "id": "…" }\`; repeats are dropped |
| \`dimensions\` | 0–5 ids from the catalog's \`dimensions\`, each once. A measure is split only by dimensions of its own family: \`orders.*\` by \`orders.*\`, \`events.*\` by \`events.*\`, \`channel.*\` and \`<platform>.*\` by \`channel.*\`; \`core.*\` by none. Anything else is a 400 naming the measure and the dimension |
| \`granularity\` | \`none\` (default), \`second\`, \`minute\`, \`hour\`, \`day\`, \`week\` (Monday to Sunday), \`month\`, \`quarter\`, \`year\`, in \`timezone\` |
| \`dateRange\` | required; \`{start, end}\`: plain dates (the end day included) or date-times (end excluded; without an offset, a wall time in \`timezone\`); years 1970–2999; at most 732 days |
| \`compareDateRange\` | optional, same form; must not overlap \`dateRange\`. Without it and with a granularity other than \`none\`, the preceding period of equal length is used and echoed: the same number of calendar days before \`start\` for plain dates, the same length of time for date-times |
| \`timezone\` | IANA name, default \`UTC\` |
| \`currency\` | ISO 4217, default \`USD\` |
| \`filters\` | the filter grammar, context \`query_measures\` |
| \`orderSettings\` | the order-settings PUT body's members and rules (one schema), each optional: \`countPendingOrders\` (false), \`countVoidedOrders\` (false), \`refundDateAttribution\` (\`refund_date\`; \`order_date\`, or its alias \`original_order_date\`), \`exclusionFilters\` (\`[]\`). Ids and timestamps may be sent (a GET document can be pasted) and are ignored |

Both ranges together may hold at most 10,000 time buckets. Unknown body keys and any query-string parameter are a 400.

${PRICED}`,
  queryCohortAnalysis: `New customers grouped by when they were acquired, and what they were worth in the periods that followed. Like the query, it never reads the stored order settings. Definitions of cohorts, periods and the seven measures: README, "POST /db-mgmt/api/query-cohort-analysis".

| member | rules |
|---|---|
| \`pixelId\` | required; must equal \`x-pixel-id\` (else 403) |
| \`granularity\` | required: \`week\` (Monday to Sunday), \`month\` or \`year\`, in \`timezone\` |
| \`measures\` | required, 1–30 strings of the seven cohort measures (\`GET /db-mgmt/api/measures?context=query_cohort\`); repeats are dropped |
| \`dateRange\` | required; the **acquisition window**, \`{start, end}\` as in the query (plain dates include the end day); at most 732 days |
| \`periods\` | optional integer ≥ 0: how many periods after the acquisition period to report (points k = 0 … \`periods\`). Default / maximum: \`week\` 12 / 104, \`month\` 12 / 36, \`year\` 3 / 10 |
| \`timezone\` | IANA name, default \`UTC\` |
| \`currency\` | ISO 4217, default \`USD\` |
| \`filters\` | the filter grammar, context \`query_cohort\`: \`orders.source_name\`, \`orders.payment_gateway\`, \`orders.currency\`, \`orders.tag\`. They pick which customers form the cohorts, by their first counted order; once in a cohort, every counted order of the customer counts |
| \`viewFilters\` | the older name of \`filters\`: one filter, or a list of filters that must all match (\`[]\` filters nothing); sending both is a 400 |
| \`orderSettings\` | the query's \`orderSettings\` (same schema and defaults: \`false\`, \`false\`, \`refund_date\`, \`[]\`; \`original_order_date\` = \`order_date\`) |

${PRICED}`,
  queryAds: `Lists the pixel's ads, one flat row per ad, optionally with a daily series of ad-platform measures. Series, currency, paging and the columnar format: README, "POST /db-mgmt/api/query-ads".

| field | rules |
|---|---|
| \`pixelId\` | required; must equal \`x-pixel-id\` (else 403) |
| \`measures\` | optional, at most 30, only ad-platform measures (the 400 names every other id). Absent or empty: a listing, rows have no \`data\` key. Duplicates are ignored |
| \`dateRange\` | \`{start, end}\`, each \`YYYY-MM-DD\` or a date-time \`YYYY-MM-DDTHH:mm[:ss[.sss]][Z\\|±HH:mm]\`. Required with measures or with a metric filter; otherwise ignored. A date-only \`start\` is that day's first instant and a date-only \`end\` covers that whole day; a date-time without an offset is a wall time in \`timezone\`; a date-time \`end\` is exclusive. At most 366 days |
| \`compareDateRange\` | same form; requires measures. If it overlaps \`dateRange\` it is dropped without an error and rows carry only \`data.primary\`. There is no automatic preceding period |
| \`filters\` | the filter grammar, fields of context \`query_ads\` (see GET filters). Metric conditions compare the ad's value over the whole \`dateRange\`, money in \`currency\` |
| \`timezone\` | an IANA zone name; reads the ranges and buckets the days. Default \`UTC\` |
| \`currency\` | an ISO 4217 code. Default \`USD\` |
| \`limit\` | 1–500, default 50 |
| \`offset\` | ≥ 0, default 0 |
| \`sortBy\` | \`sourceUpdatedAt\` (default), \`sourceCreatedAt\`, \`resourceName\` (the ad's name, by code point) |
| \`sortDirection\` | \`asc\` or \`desc\` (default), lowercase |
| \`format\` | \`rows\` (default): one object per day; \`columnar\`: one array per measure per ad, the days listed once in \`calendar\` |

${PRICED}`,
  queryAttribution: `Credits each counted order of \`dateRange\` to the marketing touchpoints of its buyer's journey under one or several attribution models, side by side, with ad spend next to the credited revenue where the dimension joins ad data. Journeys, touchpoints, models and measures: README, "POST /db-mgmt/api/query-attribution".

| member | rules |
|---|---|
| \`pixelId\` | required; must equal \`x-pixel-id\` (else 403) |
| \`dateRange\` | required; as in \`/db-mgmt/api/query\`; orders by their order date; at most 366 days |
| \`compareDateRange\` | optional, same form; never implied; must not overlap \`dateRange\` |
| \`timezone\`, \`currency\` | as in \`/db-mgmt/api/query\` (defaults \`UTC\`, \`USD\`) |
| \`granularity\` | \`none\` (default), \`day\`, \`week\` (Monday to Sunday), \`month\`, in \`timezone\`, by order date |
| \`dimension\` | one of \`source\` (default), \`utm_source\`, \`utm_medium\`, \`utm_campaign\`, \`utm_content\`, \`utm_term\`, \`channel.campaign_id\`, \`channel.adset_id\`, \`channel.ad_id\` |
| \`attributionModel\` | a model or an array of 1–6 distinct models: \`first_click\`, \`last_click\` (default), \`any_click\`, \`linear\`, \`time_decay\`, \`position_based\`; one entry of \`results\` per model, in the order given |
| \`attributionWindow\` | days, one of 1, 7, 14, 28, 30 (default), 60, 90; anything else is 400 |
| \`measures\` | 1–30 ids from \`GET /db-mgmt/api/measures?context=query_attribution\` (a string or \`{ "id" }\`); default \`["attribution.orders", "attribution.revenue"]\` |
| \`filters\` | the filter grammar with the \`orders.*\` fields of context \`query_attribution\` (\`GET /db-mgmt/api/filters?context=query_attribution\`): they narrow which orders are credited |
| \`orderSettings\` | exactly as in \`/db-mgmt/api/query\` (same schema and defaults; the stored settings are never read): which orders count |

A spend measure (\`channel.spend\`, \`attribution.roas\`, \`attribution.cpa\`) with a dimension that cannot join ad data is a 400 whose message names both. The answer holds one result per model: \`{ attributionModel, attributionWindow, dimension, granularity, dateRange, compareDateRange, timezone, currency, measureDetails, data: { primary, compare } }\`; a point is \`{ dt, start, end, <dimension>: value, <measure>: value… }\`, one per bucket and dimension value with data, sorted by time then value (\`null\` first).

${PRICED}`,
  listDashboardViews: `Summaries, sorted by \`order\`, then \`createdAt\`, then id; not paginated. Another query parameter, or an unknown \`type\`, is a 400.`,
  createDashboardView: [`\`name\` and \`configuration\` required (\`configuration: {}\` is valid); \`type\` and \`order\` optional. The answer has every id, default and timestamp set.`, DASHBOARD_CONFIGURATION].join('\n\n'),
  updateDashboardView: [`Only \`name\`, \`configuration\` and \`order\`, at least one; anything else is a 400. \`configuration\` replaces the stored one whole (defaults applied as on create; widget and section ids sent back are kept). \`updatedAt\` becomes the request time. Concurrent PATCHes never lose an update: each applies its members to the version it read, and one that loses the race re-reads and applies them again.`, DASHBOARD_VIEW, DASHBOARD_CONFIGURATION].join('\n\n'),
  copyDashboardView: [`Optional body \`{"name": "…"}\`: without \`name\`, the copy is named \`"<name> (copy)"\` (shortened with an ellipsis to stay within 100 characters). New id, new timestamps, \`order\` = highest + 1, same type and configuration; widget and section ids are kept so \`sourceWidgetId\` links stay inside the copy.`, DASHBOARD_VIEW].join('\n\n'),
  createDashboardViewFromPreset: `Builds a view of sparkline KPI tiles.

- \`name\` and \`widgets\` (1–100 entries \`{measure, title?}\`) are required; every \`measure\` must be in the measures catalog (each unknown id is a 400 at \`["widgets", i, "measure"]\`); \`title\` defaults to the measure's \`shortTitle\`. Optional: \`type\`, \`dateRange\`, \`granularity\`, \`attributionModel\`, \`attributionWindow\`.
- The view has one \`sparkline\` widget per entry, laid out in reading order on the 12-column grid: tiles of 3 × 2, four to a row, entry *i* at \`x = (i % 4) × 3\`, \`y = ⌊i / 4⌋ × 2\`; no two overlap.`,
  deleteDashboardView: [`A second DELETE is a \`404\`.`, DASHBOARD_VIEW].join('\n\n'),
  ingestEvents: `Server-side tracking events, in two body forms:

- **Batch** \`{"events": [Event, …]}\`, \`events\` holding 1–100 events: the answer is \`{"success": true, "eventsIngested": <n>}\`.
- **Single**: the body is one Event: the answer is \`{"success": true, "eventId": "<your eventId, or a server-assigned ULID>"}\`.
- Either form may carry \`pixelId\`; if it does it must equal \`x-pixel-id\` (else 403).
- All or nothing: one invalid event rejects the whole batch with 400 and nothing is stored; a 200 means every event is accepted, in one durable write, to the ingestion log, and becomes readable once the pipeline has projected it.
- The raw body may be at most 131,072 bytes (counted as received, before anything decodes it; base64 bodies decoded), else 413. A body that is not valid UTF-8 is a 400 \`malformed_body\`, whatever its \`Content-Type\`.

| field | rules |
|---|---|
| \`name\` | required; \`^[a-zA-Z][a-zA-Z0-9_]*$\`, at most 100 characters. Standard names (case-sensitive): \`page_view view_content view_category view_item view_item_list view_cart search add_to_cart remove_from_cart product_removed_from_cart add_to_wishlist begin_checkout initiate_checkout add_shipping_info add_payment_info purchase refund sign_up login lead subscribe start_trial contact\`; any other matching name is a custom event (\`Purchase\` is custom) |
| \`eventId\` | optional, 1–128 printable ASCII characters without spaces: the idempotency key. **Send one** |
| \`timestamp\` | optional date-time with seconds and an offset; default: when the request was received. Rejected if more than 5 minutes ahead of receipt or more than 730 days before it |
| \`user\` | \`emails\`, \`phones\`, \`userIds\`: up to 10 each. Emails and phones are stored only as SHA-256 hashes. \`anonymousId\`: the pixel's first-party browser id (1–255 characters, opaque, kept as sent, one per event); attribution uses it to stitch a visitor's journey |
| \`ipAddress\` | IPv4 or IPv6 |
| \`page\` | \`url\` absolute http(s) (≤ 8,192 characters), \`referrer\` an absolute URL or \`""\`, \`title\` (≤ 2,048). \`utm_source\`, \`utm_medium\`, \`utm_campaign\`, \`utm_term\`, \`utm_content\` are read from \`url\` and stored as fields |
| \`click\` | \`fbc\`, \`fbp\`, \`gclid\`, \`ttclid\`: 1–1,000 characters each |
| \`data\` | \`orderId\` (1–255), \`value\` (≥ 0), \`currency\` (1–10 characters), \`items\` (≤ 200), \`orderDate\`, \`sourceName\`, \`tags\` (≤ 250 strings), \`paymentGateway\`, \`financialStatus\` (\`paid\`, \`pending\`, \`voided\`, \`refunded\`, \`partially_refunded\`), \`refunds\` (\`[{id?, amount ≥ 0, processedAt}]\`, ≤ 100), \`shippingCost\`, \`shippingCharged\`, \`discounts\`, \`taxes\` (≥ 0). Any other key is custom: a string, number, boolean, null, or a flat array of those (≤ 100) |
| \`data.items[]\` | \`id\`, \`sku\`, \`productId\`, \`variantId\`, \`name\`, \`title\`, \`brand\`, \`category\`, \`variant\`, \`currency\` strings; \`price\`, \`quantity\` (≥ 0), \`value\`, \`discount\`, \`cost\` (≥ 0) numbers; other keys flat values as above |

Unknown keys are rejected everywhere except among \`data\`'s and an item's custom keys. Errors use their own envelope: \`{ message, requestId, error: { code, details? } }\` (codes: README, "POST /tr/api/events").`,
  getDashboardView: DASHBOARD_VIEW,
};
