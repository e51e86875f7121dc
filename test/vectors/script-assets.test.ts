import { testSuite } from '../support/suite-test.js';
import { suite } from './suites/script-assets.js';

testSuite(suite);
