/**
 * The word lists the dataset generator draws from: real places, industries and schools with stable
 * ids, international names, job titles and skills per job function, and text templates. Kept apart
 * from generate.ts so the generation logic stays readable; nothing here is random.
 */

export interface LocationSeed {
  id: string;
  city: string;
  country: string;
}

/** City-level locations; ids are stable numeric strings (filters copy them unchanged). */
export const LOCATIONS: readonly LocationSeed[] = [
  { id: '105080838', city: 'New York', country: 'United States' },
  { id: '102095887', city: 'San Francisco', country: 'United States' },
  { id: '104116203', city: 'Seattle', country: 'United States' },
  { id: '104472866', city: 'Austin', country: 'United States' },
  { id: '102380872', city: 'Boston', country: 'United States' },
  { id: '103112676', city: 'Chicago', country: 'United States' },
  { id: '100025096', city: 'Toronto', country: 'Canada' },
  { id: '103366113', city: 'Vancouver', country: 'Canada' },
  { id: '102257491', city: 'London', country: 'United Kingdom' },
  { id: '105369891', city: 'Manchester', country: 'United Kingdom' },
  { id: '106890426', city: 'Edinburgh', country: 'United Kingdom' },
  { id: '105178154', city: 'Dublin', country: 'Ireland' },
  { id: '106967730', city: 'Berlin', country: 'Germany' },
  { id: '100477049', city: 'Munich', country: 'Germany' },
  { id: '106430557', city: 'Hamburg', country: 'Germany' },
  { id: '106772406', city: 'Frankfurt', country: 'Germany' },
  { id: '105015875', city: 'Paris', country: 'France' },
  { id: '102650887', city: 'Lyon', country: 'France' },
  { id: '102011674', city: 'Amsterdam', country: 'Netherlands' },
  { id: '100994331', city: 'Madrid', country: 'Spain' },
  { id: '107025191', city: 'Barcelona', country: 'Spain' },
  { id: '102873672', city: 'Milan', country: 'Italy' },
  { id: '103350119', city: 'Rome', country: 'Italy' },
  { id: '102436504', city: 'Zurich', country: 'Switzerland' },
  { id: '100907646', city: 'Stockholm', country: 'Sweden' },
  { id: '105076658', city: 'Warsaw', country: 'Poland' },
  { id: '106149163', city: 'Kraków', country: 'Poland' },
  { id: '106802612', city: 'Sofia', country: 'Bulgaria' },
  { id: '105214831', city: 'Bengaluru', country: 'India' },
  { id: '106164952', city: 'Mumbai', country: 'India' },
  { id: '105556991', city: 'Hyderabad', country: 'India' },
  { id: '102454443', city: 'Singapore', country: 'Singapore' },
  { id: '102772228', city: 'Shanghai', country: 'China' },
  { id: '101355337', city: 'Tokyo', country: 'Japan' },
  { id: '105149562', city: 'Seoul', country: 'South Korea' },
  { id: '106204383', city: 'Dubai', country: 'United Arab Emirates' },
  { id: '101570771', city: 'Tel Aviv', country: 'Israel' },
  { id: '104197452', city: 'Lagos', country: 'Nigeria' },
  { id: '100710459', city: 'Nairobi', country: 'Kenya' },
  { id: '104746682', city: 'São Paulo', country: 'Brazil' },
  { id: '103323778', city: 'Mexico City', country: 'Mexico' },
  { id: '104769905', city: 'Sydney', country: 'Australia' },
  { id: '100992797', city: 'Melbourne', country: 'Australia' },
];

export type SectorKey =
  | 'tech'
  | 'security'
  | 'finance'
  | 'health'
  | 'consulting'
  | 'marketing'
  | 'retail'
  | 'logistics'
  | 'industrial'
  | 'property'
  | 'energy'
  | 'media'
  | 'education'
  | 'hospitality'
  | 'professional'
  | 'staffing';

export interface IndustrySeed {
  id: string;
  name: string;
  sector: SectorKey;
  /** Relative share of generated companies. */
  weight: number;
}

export const INDUSTRIES: readonly IndustrySeed[] = [
  { id: '4', name: 'Software Development', sector: 'tech', weight: 14 },
  { id: '96', name: 'IT Services and IT Consulting', sector: 'tech', weight: 6 },
  { id: '6', name: 'Technology, Information and Internet', sector: 'tech', weight: 5 },
  { id: '118', name: 'Computer and Network Security', sector: 'security', weight: 3 },
  { id: '3', name: 'Computer Hardware Manufacturing', sector: 'industrial', weight: 1 },
  { id: '8', name: 'Telecommunications', sector: 'tech', weight: 1 },
  { id: '43', name: 'Financial Services', sector: 'finance', weight: 4 },
  { id: '41', name: 'Banking', sector: 'finance', weight: 2 },
  { id: '42', name: 'Insurance', sector: 'finance', weight: 2 },
  { id: '106', name: 'Venture Capital and Private Equity Principals', sector: 'finance', weight: 1 },
  { id: '14', name: 'Hospitals and Health Care', sector: 'health', weight: 2 },
  { id: '15', name: 'Pharmaceutical Manufacturing', sector: 'health', weight: 1 },
  { id: '12', name: 'Biotechnology Research', sector: 'health', weight: 1 },
  { id: '11', name: 'Business Consulting and Services', sector: 'consulting', weight: 3 },
  { id: '80', name: 'Advertising Services', sector: 'marketing', weight: 2 },
  { id: '1862', name: 'Marketing Services', sector: 'marketing', weight: 1 },
  { id: '27', name: 'Retail', sector: 'retail', weight: 2 },
  { id: '34', name: 'Food and Beverage Services', sector: 'hospitality', weight: 1 },
  { id: '31', name: 'Hospitality', sector: 'hospitality', weight: 1 },
  { id: '116', name: 'Transportation, Logistics, Supply Chain and Storage', sector: 'logistics', weight: 2 },
  { id: '94', name: 'Airlines and Aviation', sector: 'logistics', weight: 1 },
  { id: '53', name: 'Motor Vehicle Manufacturing', sector: 'industrial', weight: 1 },
  { id: '25', name: 'Manufacturing', sector: 'industrial', weight: 1 },
  { id: '48', name: 'Construction', sector: 'property', weight: 1 },
  { id: '44', name: 'Real Estate', sector: 'property', weight: 1 },
  { id: '59', name: 'Utilities', sector: 'energy', weight: 1 },
  { id: '3240', name: 'Renewable Energy Power Generation', sector: 'energy', weight: 1 },
  { id: '36', name: 'Broadcast Media Production and Distribution', sector: 'media', weight: 1 },
  { id: '132', name: 'E-Learning Providers', sector: 'education', weight: 1 },
  { id: '9', name: 'Law Practice', sector: 'professional', weight: 1 },
  { id: '47', name: 'Accounting', sector: 'professional', weight: 1 },
  { id: '104', name: 'Staffing and Recruiting', sector: 'staffing', weight: 1 },
];

export type FunctionKey =
  | 'engineering'
  | 'data'
  | 'product'
  | 'design'
  | 'sales'
  | 'marketing'
  | 'finance'
  | 'people'
  | 'operations'
  | 'consulting'
  | 'security';

export interface SectorSeed {
  /** Second words of company names ("Cobalt Analytics"). */
  nameWords: readonly string[];
  specialties: readonly string[];
  /** What the company offers, for summaries ("builds <offer> for <customers>"). */
  offers: readonly string[];
  customers: readonly string[];
  products: readonly { name: string; category: string }[];
  functions: readonly FunctionKey[];
}

export const SECTORS: Record<SectorKey, SectorSeed> = {
  tech: {
    nameWords: ['Software', 'Systems', 'Labs', 'Technologies', 'Cloud', 'Analytics', 'Digital', 'Data'],
    specialties: [
      'Software',
      'SaaS',
      'Cloud Computing',
      'APIs',
      'Machine Learning',
      'DevOps',
      'Data Platforms',
    ],
    offers: ['cloud software', 'developer tools', 'data infrastructure', 'workflow automation'],
    customers: ['fast-growing teams', 'enterprises', 'developers', 'mid-sized businesses'],
    products: [
      { name: 'Insights', category: 'Business Intelligence Software' },
      { name: 'Pipelines', category: 'Data Integration Software' },
      { name: 'Flow', category: 'Workflow Management Software' },
      { name: 'Console', category: 'Cloud Management Software' },
    ],
    functions: ['engineering', 'data', 'product', 'design', 'sales'],
  },
  security: {
    nameWords: ['Security', 'Defense', 'Shield', 'Cyber'],
    specialties: [
      'Cybersecurity',
      'Software',
      'Threat Intelligence',
      'Identity and Access Management',
      'SOC',
    ],
    offers: ['threat detection', 'identity security', 'managed security services'],
    customers: ['banks', 'governments', 'enterprises'],
    products: [
      { name: 'Sentinel', category: 'Security Information and Event Management (SIEM) Software' },
      { name: 'Guard', category: 'Identity Management Software' },
    ],
    functions: ['security', 'engineering', 'sales'],
  },
  finance: {
    nameWords: ['Capital', 'Financial', 'Partners', 'Bank', 'Payments', 'Invest'],
    specialties: ['Payments', 'Asset Management', 'Fintech', 'Lending', 'Wealth Management', 'Risk'],
    offers: ['payment services', 'business loans', 'wealth management', 'insurance products'],
    customers: ['small businesses', 'families', 'institutional investors', 'online merchants'],
    products: [
      { name: 'Pay', category: 'Payment Processing Software' },
      { name: 'Ledger', category: 'Accounting Software' },
    ],
    functions: ['finance', 'data', 'engineering', 'sales', 'operations'],
  },
  health: {
    nameWords: ['Health', 'Care', 'Therapeutics', 'Bio', 'Medical'],
    specialties: ['Healthcare', 'Clinical Research', 'Digital Health', 'Oncology', 'Diagnostics'],
    offers: ['clinical care', 'diagnostic tests', 'new therapies', 'digital health services'],
    customers: ['patients', 'hospitals', 'clinicians'],
    products: [{ name: 'Connect', category: 'Electronic Health Records (EHR) Software' }],
    functions: ['operations', 'data', 'finance', 'people'],
  },
  consulting: {
    nameWords: ['Consulting', 'Advisory', 'Partners', 'Group'],
    specialties: ['Strategy', 'Digital Transformation', 'Management Consulting', 'Operations'],
    offers: ['strategy consulting', 'transformation programmes', 'operational advice'],
    customers: ['leadership teams', 'public sector bodies', 'global corporations'],
    products: [],
    functions: ['consulting', 'finance', 'operations', 'data'],
  },
  marketing: {
    nameWords: ['Media', 'Creative', 'Agency', 'Brands', 'Studio'],
    specialties: ['Digital Marketing', 'Branding', 'Content', 'Performance Marketing', 'SEO'],
    offers: ['brand campaigns', 'performance marketing', 'content strategy'],
    customers: ['consumer brands', 'startups', 'retailers'],
    products: [{ name: 'Reach', category: 'Marketing Automation Software' }],
    functions: ['marketing', 'design', 'sales'],
  },
  retail: {
    nameWords: ['Retail', 'Stores', 'Market', 'Goods'],
    specialties: ['E-commerce', 'Omnichannel Retail', 'Fashion', 'Consumer Goods'],
    offers: ['everyday essentials', 'sustainable fashion', 'home goods'],
    customers: ['shoppers', 'households'],
    products: [{ name: 'Rewards', category: 'Loyalty Management Software' }],
    functions: ['operations', 'marketing', 'sales', 'finance'],
  },
  logistics: {
    nameWords: ['Logistics', 'Freight', 'Mobility', 'Air', 'Transport'],
    specialties: ['Logistics', 'Supply Chain', 'Freight Forwarding', 'Last-Mile Delivery', 'Aviation'],
    offers: ['freight and delivery', 'supply chain services', 'air travel'],
    customers: ['manufacturers', 'retailers', 'travellers'],
    products: [{ name: 'Track', category: 'Fleet Management Software' }],
    functions: ['operations', 'engineering', 'finance'],
  },
  industrial: {
    nameWords: ['Industries', 'Manufacturing', 'Motors', 'Devices', 'Works'],
    specialties: ['Manufacturing', 'Automotive', 'Electronics', 'Industrial Automation', 'Hardware'],
    offers: ['electric vehicles', 'industrial machinery', 'computer hardware'],
    customers: ['manufacturers', 'drivers', 'data centres'],
    products: [{ name: 'Edge', category: 'Industrial IoT Software' }],
    functions: ['engineering', 'operations', 'finance'],
  },
  property: {
    nameWords: ['Properties', 'Construction', 'Homes', 'Build'],
    specialties: ['Real Estate', 'Construction', 'Property Management', 'Sustainable Building'],
    offers: ['residential buildings', 'commercial property', 'infrastructure projects'],
    customers: ['cities', 'tenants', 'investors'],
    products: [],
    functions: ['operations', 'finance', 'sales'],
  },
  energy: {
    nameWords: ['Energy', 'Power', 'Renewables', 'Grid'],
    specialties: ['Renewable Energy', 'Solar', 'Wind', 'Energy Storage', 'Utilities'],
    offers: ['clean power', 'energy storage', 'grid services'],
    customers: ['households', 'utilities', 'industry'],
    products: [{ name: 'Grid', category: 'Energy Management Software' }],
    functions: ['engineering', 'operations', 'finance'],
  },
  media: {
    nameWords: ['Media', 'Broadcasting', 'Studios', 'News'],
    specialties: ['Broadcasting', 'Streaming', 'Journalism', 'Video Production'],
    offers: ['news and entertainment', 'video streaming', 'documentaries'],
    customers: ['audiences', 'advertisers'],
    products: [{ name: 'Play', category: 'Video Streaming Software' }],
    functions: ['marketing', 'design', 'engineering'],
  },
  education: {
    nameWords: ['Learning', 'Academy', 'Education', 'Campus'],
    specialties: ['E-Learning', 'EdTech', 'Corporate Training', 'Online Courses'],
    offers: ['online courses', 'corporate training', 'learning software'],
    customers: ['learners', 'schools', 'HR teams'],
    products: [{ name: 'Classroom', category: 'Learning Management Systems' }],
    functions: ['product', 'engineering', 'marketing', 'people'],
  },
  hospitality: {
    nameWords: ['Hospitality', 'Hotels', 'Kitchen', 'Foods'],
    specialties: ['Hospitality', 'Food Service', 'Catering', 'Hotels'],
    offers: ['hotels and restaurants', 'catering', 'fresh food'],
    customers: ['guests', 'event organisers', 'offices'],
    products: [],
    functions: ['operations', 'marketing', 'people'],
  },
  professional: {
    nameWords: ['Law', 'Legal', 'Accountants', 'Advisors'],
    specialties: ['Corporate Law', 'Tax', 'Audit', 'Compliance', 'Mergers and Acquisitions'],
    offers: ['legal advice', 'audit and tax services'],
    customers: ['companies', 'founders', 'families'],
    products: [],
    functions: ['finance', 'consulting', 'people'],
  },
  staffing: {
    nameWords: ['Talent', 'Recruitment', 'People', 'Staffing'],
    specialties: ['Recruitment', 'Executive Search', 'Staffing', 'Talent Acquisition'],
    offers: ['recruitment services', 'executive search', 'contract staffing'],
    customers: ['employers', 'job seekers'],
    products: [{ name: 'Match', category: 'Applicant Tracking Systems' }],
    functions: ['people', 'sales', 'operations'],
  },
};

/** First words of generated company names; "Northwind" and "Helix" are reserved for planted ones. */
export const COMPANY_NAME_STEMS: readonly string[] = [
  'Bluepeak',
  'Silverline',
  'Brightwave',
  'Ironclad',
  'Redwood',
  'Cobalt',
  'Evergreen',
  'Lumen',
  'Quantum',
  'Horizon',
  'Nimbus',
  'Vertex',
  'Atlas',
  'Meridian',
  'Orbital',
  'Kestrel',
  'Granite',
  'Harbor',
  'Sterling',
  'Aurora',
  'Cedar',
  'Falcon',
  'Summit',
  'Pioneer',
  'Beacon',
  'Crescent',
  'Polaris',
  'Tidewater',
  'Oakridge',
  'Juniper',
  'Saffron',
  'Lighthouse',
  'Bridgewater',
  'Fjord',
  'Sequoia',
  'Monsoon',
  'Tessera',
  'Alder',
  'Vantage',
  'Keystone',
];

export const COMPANY_SIZES = [
  { code: 'B', range: '1-10', weight: 3 },
  { code: 'C', range: '11-50', weight: 5 },
  { code: 'D', range: '51-200', weight: 6 },
  { code: 'E', range: '201-500', weight: 4 },
  { code: 'F', range: '501-1,000', weight: 3 },
  { code: 'G', range: '1,001-5,000', weight: 3 },
  { code: 'H', range: '5,001-10,000', weight: 1 },
  { code: 'I', range: '10,001+', weight: 2 },
] as const;

export const SERVICE_CATEGORIES: readonly { id: string; name: string }[] = [
  { id: '220', name: 'Software Development' },
  { id: '221', name: 'Web Development' },
  { id: '236', name: 'Graphic Design' },
  { id: '242', name: 'Digital Marketing' },
  { id: '251', name: 'Accounting' },
  { id: '256', name: 'Business Consulting' },
  { id: '262', name: 'Career Coaching' },
  { id: '270', name: 'Translation' },
  { id: '274', name: 'Legal Services' },
  { id: '281', name: 'Photography' },
  { id: '289', name: 'IT Support' },
  { id: '293', name: 'Content Writing' },
];

export const SCHOOLS: readonly { slug: string; name: string; location: string }[] = [
  { slug: 'mit', name: 'Massachusetts Institute of Technology', location: 'Cambridge, United States' },
  { slug: 'stanford-university', name: 'Stanford University', location: 'Stanford, United States' },
  { slug: 'harvard-university', name: 'Harvard University', location: 'Cambridge, United States' },
  { slug: 'university-of-washington', name: 'University of Washington', location: 'Seattle, United States' },
  {
    slug: 'the-university-of-texas-at-austin',
    name: 'The University of Texas at Austin',
    location: 'Austin, United States',
  },
  { slug: 'university-of-toronto', name: 'University of Toronto', location: 'Toronto, Canada' },
  { slug: 'university-of-oxford', name: 'University of Oxford', location: 'Oxford, United Kingdom' },
  { slug: 'university-of-cambridge', name: 'University of Cambridge', location: 'Cambridge, United Kingdom' },
  { slug: 'imperial-college-london', name: 'Imperial College London', location: 'London, United Kingdom' },
  {
    slug: 'the-university-of-edinburgh',
    name: 'The University of Edinburgh',
    location: 'Edinburgh, United Kingdom',
  },
  { slug: 'trinity-college-dublin', name: 'Trinity College Dublin', location: 'Dublin, Ireland' },
  {
    slug: 'technical-university-of-munich',
    name: 'Technical University of Munich',
    location: 'Munich, Germany',
  },
  {
    slug: 'humboldt-universitat-zu-berlin',
    name: 'Humboldt-Universität zu Berlin',
    location: 'Berlin, Germany',
  },
  { slug: 'eth-zurich', name: 'ETH Zürich', location: 'Zurich, Switzerland' },
  { slug: 'sorbonne-universite', name: 'Sorbonne Université', location: 'Paris, France' },
  { slug: 'hec-paris', name: 'HEC Paris', location: 'Jouy-en-Josas, France' },
  {
    slug: 'delft-university-of-technology',
    name: 'Delft University of Technology',
    location: 'Delft, Netherlands',
  },
  {
    slug: 'universidad-complutense-de-madrid',
    name: 'Universidad Complutense de Madrid',
    location: 'Madrid, Spain',
  },
  { slug: 'politecnico-di-milano', name: 'Politecnico di Milano', location: 'Milan, Italy' },
  {
    slug: 'kth-royal-institute-of-technology',
    name: 'KTH Royal Institute of Technology',
    location: 'Stockholm, Sweden',
  },
  { slug: 'university-of-warsaw', name: 'University of Warsaw', location: 'Warsaw, Poland' },
  { slug: 'sofia-university', name: 'Sofia University "St. Kliment Ohridski"', location: 'Sofia, Bulgaria' },
  { slug: 'iit-bombay', name: 'Indian Institute of Technology, Bombay', location: 'Mumbai, India' },
  {
    slug: 'national-university-of-singapore',
    name: 'National University of Singapore',
    location: 'Singapore, Singapore',
  },
  { slug: 'the-university-of-tokyo', name: 'The University of Tokyo', location: 'Tokyo, Japan' },
  { slug: 'university-of-lagos', name: 'University of Lagos', location: 'Lagos, Nigeria' },
  { slug: 'universidade-de-sao-paulo', name: 'Universidade de São Paulo', location: 'São Paulo, Brazil' },
  {
    slug: 'the-university-of-melbourne',
    name: 'The University of Melbourne',
    location: 'Melbourne, Australia',
  },
];

export interface Culture {
  firstNames: readonly string[];
  lastNames: readonly string[];
  /** Cities (location ids) where people of this culture mostly live. */
  locationIds: readonly string[];
  weight: number;
}

export const CULTURES: readonly Culture[] = [
  {
    firstNames: [
      'James',
      'Emily',
      'Michael',
      'Sarah',
      'David',
      'Jessica',
      'Daniel',
      'Ashley',
      'Ryan',
      'Megan',
    ],
    lastNames: [
      'Smith',
      'Johnson',
      'Williams',
      'Brown',
      'Miller',
      'Davis',
      'Wilson',
      'Anderson',
      'Taylor',
      'Moore',
    ],
    locationIds: [
      '105080838',
      '102095887',
      '104116203',
      '104472866',
      '102380872',
      '103112676',
      '100025096',
      '103366113',
    ],
    weight: 6,
  },
  {
    firstNames: [
      'Oliver',
      'Charlotte',
      'Harry',
      'Isla',
      'George',
      'Poppy',
      'Jack',
      'Sophie',
      'Thomas',
      'Grace',
    ],
    lastNames: [
      'Clarke',
      'Hughes',
      'Evans',
      'Wright',
      'Roberts',
      'Turner',
      'Bennett',
      'Hall',
      'Cooper',
      'Walsh',
    ],
    locationIds: ['102257491', '105369891', '106890426', '105178154', '104769905', '100992797'],
    weight: 4,
  },
  {
    firstNames: [
      'Lukas',
      'Anna',
      'Jonas',
      'Lena',
      'Felix',
      'Laura',
      'Maximilian',
      'Hannah',
      'Jürgen',
      'Katrin',
    ],
    lastNames: [
      'Müller',
      'Schmidt',
      'Schneider',
      'Fischer',
      'Weber',
      'Wagner',
      'Becker',
      'Hoffmann',
      'Schäfer',
      'Koch',
    ],
    locationIds: ['106967730', '100477049', '106430557', '106772406', '102436504'],
    weight: 4,
  },
  {
    firstNames: [
      'Camille',
      'Louis',
      'Léa',
      'Hugo',
      'Chloé',
      'Julien',
      'Manon',
      'Antoine',
      'Élodie',
      'François',
    ],
    lastNames: [
      'Martin',
      'Bernard',
      'Dubois',
      'Robert',
      'Petit',
      'Durand',
      'Leroy',
      'Moreau',
      'Lefèvre',
      'Girard',
    ],
    locationIds: ['105015875', '102650887'],
    weight: 2,
  },
  {
    firstNames: [
      'Lucía',
      'Javier',
      'Carmen',
      'Alejandro',
      'Sofía',
      'Pablo',
      'Marta',
      'Diego',
      'Elena',
      'Sergio',
    ],
    lastNames: [
      'Fernández',
      'González',
      'Rodríguez',
      'López',
      'Martínez',
      'Sánchez',
      'Pérez',
      'Gómez',
      'Ruiz',
      'Navarro',
    ],
    locationIds: ['100994331', '107025191', '103323778'],
    weight: 3,
  },
  {
    firstNames: ['Giulia', 'Marco', 'Francesca', 'Luca', 'Chiara', 'Alessandro', 'Martina', 'Matteo'],
    lastNames: ['Rossi', 'Russo', 'Ferrari', 'Esposito', 'Bianchi', 'Romano', 'Colombo', 'Ricci'],
    locationIds: ['102873672', '103350119'],
    weight: 2,
  },
  {
    firstNames: ['Daan', 'Sanne', 'Bram', 'Fleur', 'Erik', 'Astrid', 'Johan', 'Ingrid', 'Søren', 'Freja'],
    lastNames: ['de Jong', 'Jansen', 'de Vries', 'Bakker', 'Andersson', 'Johansson', 'Lindqvist', 'Björk'],
    locationIds: ['102011674', '100907646'],
    weight: 2,
  },
  {
    firstNames: ['Piotr', 'Agnieszka', 'Tomasz', 'Magdalena', 'Łukasz', 'Georgi', 'Elena', 'Dimitar'],
    lastNames: ['Nowak', 'Kowalczyk', 'Wiśniewski', 'Wójcik', 'Petrov', 'Georgiev', 'Stoyanov', 'Nikolov'],
    locationIds: ['105076658', '106149163', '106802612'],
    weight: 2,
  },
  {
    firstNames: ['Priya', 'Rahul', 'Ananya', 'Arjun', 'Sneha', 'Vikram', 'Kavya', 'Rohan', 'Aditi', 'Sanjay'],
    lastNames: ['Sharma', 'Patel', 'Iyer', 'Reddy', 'Gupta', 'Nair', 'Singh', 'Kumar', 'Menon', 'Rao'],
    locationIds: ['105214831', '106164952', '105556991', '102454443'],
    weight: 4,
  },
  {
    firstNames: [
      'Wei',
      'Mei',
      'Jun',
      'Hao',
      'Xin',
      'Yan',
      'Yuki',
      'Haruto',
      'Sakura',
      'Min-jun',
      'Seo-yeon',
      'Ji-ho',
    ],
    lastNames: ['Zhang', 'Wang', 'Chen', 'Liu', 'Tan', 'Sato', 'Suzuki', 'Tanaka', 'Kim', 'Park', 'Choi'],
    locationIds: ['102772228', '102454443', '101355337', '105149562'],
    weight: 3,
  },
  {
    firstNames: ['Chinedu', 'Ngozi', 'Oluwaseun', 'Amara', 'Emeka', 'Adaeze', 'Wanjiru', 'Kamau'],
    lastNames: ['Okafor', 'Adeyemi', 'Okonkwo', 'Balogun', 'Eze', 'Mwangi', 'Otieno'],
    locationIds: ['104197452', '100710459'],
    weight: 2,
  },
  {
    firstNames: ['João', 'Ana', 'Lucas', 'Beatriz', 'Gabriel', 'Mariana', 'Rafael', 'Larissa'],
    lastNames: ['Silva', 'Santos', 'Oliveira', 'Souza', 'Costa', 'Pereira', 'Almeida', 'Ferreira'],
    locationIds: ['104746682'],
    weight: 2,
  },
  {
    firstNames: ['Omar', 'Layla', 'Yusuf', 'Noor', 'Karim', 'Noa', 'Itai', 'Tamar'],
    lastNames: ['Haddad', 'Khalil', 'Nasser', 'Mansour', 'Cohen', 'Levi', 'Mizrahi'],
    locationIds: ['106204383', '101570771'],
    weight: 2,
  },
];

export interface JobFunction {
  /** Titles from junior to senior. */
  titles: readonly string[];
  skills: readonly string[];
  fields: readonly string[];
  certifications: readonly { name: string; authority: string | null }[];
}

export const FUNCTION_KEYS: readonly FunctionKey[] = [
  'engineering',
  'data',
  'product',
  'design',
  'sales',
  'marketing',
  'finance',
  'people',
  'operations',
  'consulting',
  'security',
];

export const FUNCTIONS: Record<FunctionKey, JobFunction> = {
  engineering: {
    titles: [
      'Software Engineer',
      'Backend Engineer',
      'Senior Software Engineer',
      'Staff Software Engineer',
      'Engineering Manager',
    ],
    skills: [
      'JavaScript',
      'TypeScript',
      'Node.js',
      'React',
      'Python',
      'Java',
      'Go',
      'Kubernetes',
      'Docker',
      'Amazon Web Services (AWS)',
      'PostgreSQL',
      'GraphQL',
      'Microservices',
      'CI/CD',
      'Distributed Systems',
      'System Design',
    ],
    fields: ['Computer Science', 'Software Engineering', 'Electrical Engineering'],
    certifications: [
      { name: 'AWS Certified Solutions Architect – Associate', authority: 'Amazon Web Services (AWS)' },
      { name: 'Certified Kubernetes Administrator (CKA)', authority: 'The Linux Foundation' },
    ],
  },
  data: {
    titles: ['Data Analyst', 'Data Engineer', 'Data Scientist', 'Senior Data Engineer', 'Head of Data'],
    skills: [
      'SQL',
      'Python',
      'Machine Learning',
      'Deep Learning',
      'Statistics',
      'Apache Spark',
      'dbt',
      'Tableau',
      'Power BI',
      'Data Visualization',
      'TensorFlow',
      'PyTorch',
      'Natural Language Processing (NLP)',
    ],
    fields: ['Statistics', 'Mathematics', 'Data Science', 'Computer Science'],
    certifications: [
      { name: 'Google Data Analytics Professional Certificate', authority: 'Google' },
      { name: 'Databricks Certified Data Engineer Associate', authority: 'Databricks' },
    ],
  },
  product: {
    titles: [
      'Associate Product Manager',
      'Product Manager',
      'Senior Product Manager',
      'Group Product Manager',
      'Director of Product',
    ],
    skills: [
      'Product Management',
      'Roadmapping',
      'Agile Methodologies',
      'Scrum',
      'User Research',
      'A/B Testing',
      'Stakeholder Management',
      'Product Strategy',
      'Jira',
    ],
    fields: ['Business Administration', 'Computer Science', 'Economics'],
    certifications: [{ name: 'Professional Scrum Product Owner I', authority: 'Scrum.org' }],
  },
  design: {
    titles: ['UX Designer', 'Product Designer', 'Senior Product Designer', 'UX Researcher', 'Design Lead'],
    skills: [
      'Figma',
      'User Experience (UX)',
      'Interaction Design',
      'Prototyping',
      'Design Systems',
      'Usability Testing',
      'Adobe Creative Suite',
    ],
    fields: ['Interaction Design', 'Graphic Design', 'Human-Computer Interaction'],
    certifications: [{ name: 'Google UX Design Certificate', authority: 'Google' }],
  },
  sales: {
    titles: [
      'Sales Development Representative',
      'Account Executive',
      'Senior Account Executive',
      'Sales Manager',
      'Regional Sales Director',
    ],
    skills: [
      'Salesforce',
      'B2B Sales',
      'Negotiation',
      'Account Management',
      'Lead Generation',
      'SaaS',
      'Customer Relationship Management (CRM)',
    ],
    fields: ['Business Administration', 'Marketing', 'Communications'],
    certifications: [{ name: 'Salesforce Certified Administrator', authority: 'Salesforce' }],
  },
  marketing: {
    titles: [
      'Marketing Coordinator',
      'SEO Specialist',
      'Content Marketing Manager',
      'Marketing Manager',
      'Head of Marketing',
    ],
    skills: [
      'Digital Marketing',
      'Search Engine Optimization (SEO)',
      'Content Strategy',
      'Social Media Marketing',
      'Google Analytics',
      'Marketing Automation',
      'Copywriting',
      'Brand Management',
    ],
    fields: ['Marketing', 'Communications', 'Journalism'],
    certifications: [{ name: 'Inbound Marketing Certification', authority: 'HubSpot Academy' }],
  },
  finance: {
    titles: [
      'Financial Analyst',
      'Senior Financial Analyst',
      'Finance Manager',
      'Controller',
      'Chief Financial Officer',
    ],
    skills: [
      'Financial Modeling',
      'Microsoft Excel',
      'Accounting',
      'Budgeting',
      'Forecasting',
      'Valuation',
      'Risk Management',
      'IFRS',
      'Corporate Finance',
    ],
    fields: ['Finance', 'Economics', 'Accounting'],
    certifications: [
      { name: 'CFA Level II Candidate', authority: 'CFA Institute' },
      { name: 'ACCA Qualification', authority: null },
    ],
  },
  people: {
    titles: [
      'Recruiter',
      'Talent Acquisition Specialist',
      'HR Business Partner',
      'People Operations Manager',
      'Head of People',
    ],
    skills: [
      'Recruiting',
      'Talent Management',
      'Employee Relations',
      'Onboarding',
      'Compensation and Benefits',
      'HR Policies',
    ],
    fields: ['Psychology', 'Human Resources Management', 'Sociology'],
    certifications: [{ name: 'SHRM Certified Professional (SHRM-CP)', authority: 'SHRM' }],
  },
  operations: {
    titles: [
      'Logistics Coordinator',
      'Supply Chain Analyst',
      'Project Manager',
      'Operations Manager',
      'Chief Operating Officer',
    ],
    skills: [
      'Operations Management',
      'Supply Chain Management',
      'Logistics',
      'Project Management',
      'Lean Six Sigma',
      'Process Improvement',
      'Vendor Management',
    ],
    fields: ['Industrial Engineering', 'Business Administration', 'Logistics'],
    certifications: [
      { name: 'Project Management Professional (PMP)', authority: 'Project Management Institute' },
      { name: 'Lean Six Sigma Green Belt', authority: null },
    ],
  },
  consulting: {
    titles: ['Business Analyst', 'Consultant', 'Senior Consultant', 'Engagement Manager', 'Partner'],
    skills: [
      'Management Consulting',
      'Business Strategy',
      'Business Analysis',
      'Change Management',
      'Microsoft PowerPoint',
      'Market Research',
    ],
    fields: ['Economics', 'Business Administration', 'Engineering'],
    certifications: [{ name: 'Certified Management Consultant (CMC)', authority: null }],
  },
  security: {
    titles: [
      'Security Analyst',
      'Security Engineer',
      'Penetration Tester',
      'Security Architect',
      'Chief Information Security Officer',
    ],
    skills: [
      'Information Security',
      'Network Security',
      'Penetration Testing',
      'SIEM',
      'Incident Response',
      'Cloud Security',
      'ISO 27001',
    ],
    fields: ['Computer Science', 'Information Security'],
    certifications: [
      { name: 'Certified Information Systems Security Professional (CISSP)', authority: 'ISC2' },
      { name: 'Offensive Security Certified Professional (OSCP)', authority: 'OffSec' },
    ],
  },
};

export const GENERAL_SKILLS: readonly string[] = [
  'Leadership',
  'Team Management',
  'Public Speaking',
  'Communication',
  'Strategic Planning',
  'Mentoring',
  'Cross-functional Team Leadership',
  'Problem Solving',
  'English',
  'German',
  'Spanish',
  'French',
];

/** Certifications anyone may hold, whatever their job function. */
export const GENERAL_CERTIFICATIONS: readonly { name: string; authority: string | null }[] = [
  { name: 'Professional Scrum Master I (PSM I)', authority: 'Scrum.org' },
  { name: 'Google Project Management Certificate', authority: 'Google' },
  { name: 'Microsoft Certified: Azure Fundamentals', authority: 'Microsoft' },
  { name: 'First Aid at Work', authority: null },
];

/** Fictional phone ranges (reserved for drama and examples) per country; '#' is a random digit. */
export const PHONE_PATTERNS: Readonly<Record<string, string>> = {
  'United States': '+1 202 555 01##',
  Canada: '+1 416 555 01##',
  'United Kingdom': '+44 20 7946 0###',
  Australia: '+61 2 5550 ####',
  Germany: '+49 30 23125 ###',
};

/** Degrees by level: a first degree, a second one, then an MBA or a doctorate. */
export const DEGREE_LEVELS: readonly (readonly string[])[] = [
  ["Bachelor's degree", 'Bachelor of Science - BS', 'Bachelor of Arts - BA', 'Bachelor of Engineering - BE'],
  ["Master's degree", 'Master of Science - MS', 'Master of Engineering - MEng'],
  ['Master of Business Administration - MBA', 'Doctor of Philosophy - PhD'],
];

/** Short position descriptions; {skill} and {other} are skills of the job function. */
export const POSITION_DESCRIPTIONS: readonly string[] = [
  'Leading {skill} initiatives across three teams.',
  'Built and maintained {skill} tooling used across the company.',
  'Responsible for {skill} and {other}.',
  'Introduced {skill} practices and mentored junior colleagues in {other}.',
];

export const COURSES: readonly { name: string; number: string | null }[] = [
  { name: 'Machine Learning', number: 'CS229' },
  { name: 'Introduction to Algorithms', number: '6.006' },
  { name: 'Corporate Finance', number: 'FIN 301' },
  { name: 'Negotiation Strategies', number: null },
  { name: 'Design Thinking', number: null },
  { name: 'Statistical Inference', number: 'STAT 210' },
  { name: 'Organizational Behavior', number: 'MGMT 200' },
  { name: 'Distributed Systems', number: 'CS 425' },
  { name: 'Marketing Analytics', number: null },
];

export const VOLUNTEERING = {
  roles: ['Mentor', 'Volunteer Teacher', 'Board Member', 'Event Organizer', 'Pro Bono Consultant', 'Coach'],
  organizations: [
    'Code Club',
    'Local Food Bank',
    'Women in Tech Network',
    'City Youth Football Club',
    'Animal Rescue Shelter',
    'Open Source Community',
  ],
  causes: [
    'Education',
    'Science and Technology',
    'Poverty Alleviation',
    'Animal Welfare',
    'Environment',
    'Economic Empowerment',
    null,
  ],
} as const;

/** Employers outside the dataset: positions there carry no slug or publicId. */
export const OUTSIDE_EMPLOYERS: readonly string[] = [
  'Freelance',
  'Self-employed',
  'Stealth Startup',
  'City Hospital Trust',
  'Regional Savings Bank',
  'Ministry of Economic Affairs',
];

export const HASHTAGS: readonly string[] = [
  'leadership',
  'hiring',
  'ai',
  'careers',
  'engineering',
  'datascience',
  'productmanagement',
  'remotework',
  'fintech',
  'sustainability',
  'innovation',
  'teamwork',
  'startups',
  'machinelearning',
  'design',
  'marketing',
];

/** Person posts; {placeholders} are filled by the generator. */
export const PERSON_POST_TEMPLATES: readonly string[] = [
  "Excited to share that I've started a new position as {title} at {company}!",
  'What we learned scaling our {skill} platform this year: start small, measure everything, and write things down.',
  "We're hiring! {company} is looking for engineers, designers and analysts in {city}. Send me a message if you're interested.",
  'Three lessons from ten years of {skill}: listen first, ship often, and give credit generously.',
  "Proud of the team for shipping {product} this quarter. Couldn't have done it without every one of you.",
  'Just got back from a conference in {city}. Great conversations about {skill} and the future of work.',
  'Unpopular opinion: most {skill} problems are really communication problems.',
  'Grateful to have mentored five new colleagues this year. Watching people grow is the best part of the job.',
  "After four amazing years at {company}, I'm moving on to a new chapter. Thank you all!",
  'Reminder to everyone: take your vacation. Your future self and your team will thank you.',
  "Happy to announce that I've earned the {certification}!",
  "How do you keep remote teams connected? Here's what has worked for us at {company}.",
  'Looking for book recommendations on {skill}. What changed the way you work?',
  'Spoke today at a meetup in {city} about {skill}. Slides are in the comments.',
];

export const COMPANY_POST_TEMPLATES: readonly string[] = [
  '{company} is hiring in {city}! Explore open roles on our careers page.',
  'Introducing {product}: the fastest way to get answers from your data.',
  'Meet our team in {city}, the newest {company} office.',
  "We're proud to be named one of the best places to work in {country} this year.",
  '{company} turns {age} today. Thank you to our customers, partners and colleagues.',
  'Our latest report on {specialty} is out. The numbers surprised us.',
];

export const COMMENT_TEMPLATES: readonly string[] = [
  'Congratulations, {first}! Well deserved.',
  'Great insights, thanks for sharing.',
  'This resonates a lot with my experience at {company}.',
  "Couldn't agree more.",
  'Interesting take. How did you measure the impact?',
  'Love this!',
  'Thanks for putting this into words.',
  'Looking forward to reading the full report.',
  'Congrats to the whole team!',
  'So true. Communication is everything.',
];

export const EMPLOYMENT_TYPES: readonly (string | null)[] = [
  'Full-time',
  'Full-time',
  'Full-time',
  'Part-time',
  'Contract',
  'Internship',
  null,
];
export const SENIORITIES: readonly (string | null)[] = [
  'Entry level',
  'Associate',
  'Mid-Senior level',
  'Mid-Senior level',
  'Director',
  null,
];
